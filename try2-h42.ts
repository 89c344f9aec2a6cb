import { createCodeGrader } from './src/tasks/graders';
const iso = (process.argv[2] ?? 'auto') as 'auto' | 'fallback';
const g = createCodeGrader({ workers: 1, timeoutMs: 5000, allowUnsandboxed: true, isolation: iso, verdictCache: false });
const code = `import os
def f():
    out = []
    base = os.getcwd()
    d = base
    for i in range(16):
        d = os.path.join(d, 'd')
        os.mkdir(d)
    fd = os.open(base, os.O_RDONLY)
    os.chdir(d)
    for what in ('etc/passwd', 'proc/1/cmdline', 'work/wt-h42/package.json'):
        try:
            g = os.open('../' * 16 + what, os.O_RDONLY, dir_fd=fd)
            out.append(what + ':' + os.read(g, 20).decode('latin1'))
        except OSError as e:
            out.append(what + ' refused ' + str(e))
    try:
        out.append('scandir:' + str(len(list(os.scandir(os.open('/', os.O_RDONLY))))))
    except OSError as e:
        out.append('scandir refused ' + str(e))
    try:
        g = os.open('../' * 16 + 'tmp/h42-escape', os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        out.append('wrote')
    except OSError as e:
        out.append('write refused ' + str(e))
    import math, json, fractions, statistics, decimal
    out.append('imports ok')
    return out
`;
const r = await g.runTests(code, ['print(f())\nassert False']);
console.log(r.results[0]!.output);
await g.close();
