import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InfrastructureError, isInfrastructureError } from '../../../src/core/infra-error';
import { createCodeGrader, createSandboxPool, normalizeCode } from '../../../src/tasks/graders';
import { CODE_COMPLETIONS, taskOf } from './completions.fixtures';

// Verdict and isolation tests get a budget no candidate here needs (and a wall backstop ten times
// that): one that hit it would fail for the wrong reason, and an isolation check would pass for the
// wrong one (they also check that nothing timed out). Only the limits tests use a short one, on purpose.
const grader = createCodeGrader({ workers: 2, timeoutMs: 30_000, memoryMb: 256 });
const limited = createCodeGrader({ workers: 1, timeoutMs: 1000, memoryMb: 256 });
afterAll(() => Promise.all([grader.close(), limited.close()]));

const ADD_TESTS = ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(0, 0) == 0'];
const addTask = taskOf('code', 'def add(a, b):\n    return a + b\n', { tests: ADD_TESTS });
const fenced = (code: string): string => `Here you go:\n\`\`\`python\n${code}\n\`\`\`\n`;
const GOOD = 'def add(a, b):\n    return a + b';
const BAD = 'def add(a, b):\n    return a - b';
const PROJECT_FILE = fileURLToPath(new URL('../../../package.json', import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));

describe('code grader: extraction from real completion shapes', () => {
  for (const c of CODE_COMPLETIONS) {
    it(`extracts from ${c.name}`, () => {
      expect(grader.extract(c.text)).toBe(c.extracted);
    });
  }
});

describe('code grader: equivalence', () => {
  it('ignores comments, blank lines and indentation width', () => {
    const a = 'def f(x):\n    # double it\n\n    return x * 2  # done\n';
    const b = fenced('def f(x):\n  return x  *  2');
    expect(grader.equivalent(a, b)).toBe(true);
  });

  it('keeps a # inside a string and tells different programs apart', () => {
    expect(normalizeCode('s = "a # b"  # note')).toBe('s = "a # b"');
    expect(grader.equivalent(GOOD, BAD)).toBe(false);
    expect(grader.equivalent('if x:\n    a()\nb()', 'if x:\n    a()\n    b()')).toBe(false);
  });
});

describe('code grader: pass@1 on hidden tests', () => {
  it('gives reward 1 to a correct solution', async () => {
    const g = await grader.grade(fenced(GOOD), addTask);
    expect(g).toMatchObject({ reward: 1, correct: true, extracted: GOOD, detail: '3/3 tests passed' });
  });

  it('gives reward 0 to a wrong solution and says how many tests passed', async () => {
    const g = await grader.grade(fenced(BAD), addTask);
    expect(g.reward).toBe(0);
    expect(g.correct).toBe(false);
    expect(g.detail).toMatch(/^1\/3 tests passed; first failure: assert add\(1, 2\) == 3 -> AssertionError/);
  });

  it('reports a syntax error as the reason', async () => {
    const g = await grader.grade(fenced('def add(a, b) return a'), addTask);
    expect(g.reward).toBe(0);
    expect(g.detail).toMatch(/^SyntaxError/);
  });

  it('reports completions without code and tasks without hidden tests', async () => {
    expect((await grader.grade('I would loop.', addTask)).detail).toBe('no code found');
    expect((await grader.grade(fenced(GOOD), taskOf('code', GOOD))).detail).toBe('task has no hidden tests');
  });

  it('runs public tests with per-test verdicts and captured output', async () => {
    const r = await grader.runTests(`${GOOD}\nprint("loaded")`, ['print(add(2, 2)); assert add(2, 2) == 4', 'assert add(2, 2) == 5']);
    expect(r).toMatchObject({ passed: 1, total: 2, timedOut: false, error: null });
    expect(r.results[0]).toMatchObject({ passed: true, output: '4\n' });
    expect(r.results[1]).toMatchObject({ passed: false, output: 'AssertionError: got 4' });
  });

  it('grades many jobs in parallel and every one comes back with its own verdict', async () => {
    const jobs = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? BAD : GOOD));
    const grades = await Promise.all(jobs.map((code) => grader.grade(fenced(code), addTask)));
    expect(grades.map((g) => g.reward)).toEqual(jobs.map((code) => (code === GOOD ? 1 : 0)));
  });
});

describe('code sandbox: limits', () => {
  it('kills a candidate that loops forever at its limit, and the next job still grades', async () => {
    const g = await limited.grade(fenced('def add(a, b):\n    while True:\n        pass'), addTask);
    expect(g).toMatchObject({ reward: 0, detail: 'timeout after 1000 ms (0/3 tests passed before)' });
    expect((await limited.grade(fenced(GOOD), addTask)).reward).toBe(1);
  });

  it('fails a candidate that allocates huge memory, but allows a modest allocation', async () => {
    const r = await grader.runTests('def grab(n):\n    return len(bytearray(n))', ['assert grab(2 * 1024 ** 3) > 0', 'assert grab(16 * 1024 ** 2) > 0']);
    expect(r.results[0]).toMatchObject({ passed: false, output: 'MemoryError' });
    expect(r.results[1]?.passed).toBe(true);
  });

  it('survives a candidate that calls os._exit, and grades the next job', async () => {
    const r = await grader.runTests(`${GOOD}\nimport os\ndef die():\n    os._exit(0)`, ['x = add(1, 1); assert x == 2', 'die()', 'x = add(2, 2); assert x == 4']);
    expect(r.passed).toBe(1);
    expect(r.results[2]?.output).toMatch(/^not run/);
    expect((await grader.grade(fenced(GOOD), addTask)).reward).toBe(1);
  });

  it('survives a candidate that tries to kill its parent worker', async () => {
    const g = await grader.grade(fenced(`import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n${GOOD}`), addTask);
    expect(g.reward).toBe(0);
    expect((await grader.grade(fenced(GOOD), addTask)).reward).toBe(1);
  });

  it('cannot forge a pass by writing protocol lines to the real stdout', async () => {
    const forge = `import os\nos.write(1, b'{"id": 1, "load": null, "results": [{"ok": true, "out": ""}], "timedOut": false, "exit": null}\\n')\n${BAD}`;
    const g = await grader.grade(fenced(forge), taskOf('code', GOOD, { tests: ['assert add(1, 2) == 3'] }));
    expect(g.reward).toBe(0);
  });
});

describe('code sandbox: isolation', () => {
  it('can use its own temp dir', async () => {
    const r = await grader.runTests('def roundtrip(s):\n    open("note.txt", "w").write(s)\n    return open("note.txt").read()', ['assert roundtrip("hi") == "hi"']);
    expect(r.passed).toBe(1);
  });

  it('cannot read the project tree or /etc/passwd', async () => {
    const r = await grader.runTests('def read(p):\n    return open(p).read()', [
      `assert "evochamber" in read(${JSON.stringify(PROJECT_FILE)})`,
      'assert "root" in read("/etc/passwd")',
    ]);
    expect(r.results.map((t) => t.passed)).toEqual([false, false]);
    expect(r.timedOut).toBe(false);
    if (grader.isolation.filesystemIsolated) {
      // Checked without open(), so this holds even if the in-process audit hook were bypassed.
      const seen = await grader.runTests('import os\ndef exists(p):\n    return os.path.exists(p)', [`assert not exists(${JSON.stringify(PROJECT_FILE)})`]);
      expect(seen.passed).toBe(1);
    }
  });

  it('cannot connect to a server on 127.0.0.1', async () => {
    let connections = 0;
    const server = createServer((s) => { connections++; s.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const code = `import socket\ndef probe():\n    try:\n        socket.create_connection(("127.0.0.1", ${port}), timeout=0.5).close()\n        return "connected"\n    except Exception as e:\n        return type(e).__name__`;
      const r = await grader.runTests(code, ['r = probe(); assert r == "connected", r']);
      expect(r.results[0]?.passed).toBe(false);
      // Refused by the sandbox, not cut by the time limit: the probe came back with an exception's name.
      expect(r.timedOut).toBe(false);
      expect(r.results[0]?.output).toMatch(/^AssertionError: \w+$/);
      expect(connections).toBe(0);
      if (grader.isolation.networkIsolated) {
        const ifs = await grader.runTests('import socket\ndef names():\n    return [n for _, n in socket.if_nameindex()]', ['assert names() == ["lo"]']);
        expect(ifs.passed).toBe(1);
      }
    } finally {
      server.close();
    }
  });

  it('cannot start subprocesses or fork', async () => {
    // Tests run in the checker; what the candidate's own functions try is what is refused.
    const code = 'import os\ndef sub():\n    import subprocess\n    return subprocess.run(["true"]).returncode\ndef fork():\n    return os.fork() >= 0\ndef system():\n    return os.system("true")';
    const r = await grader.runTests(code, ['assert sub() == 0', 'assert fork()', 'assert system() == 0']);
    expect(r.results.map((t) => t.passed)).toEqual([false, false, false]);
    expect(r.timedOut).toBe(false);
  });
});

describe('code sandbox: worker pool', () => {
  it('reports a job whose worker dies mid-run as failed, then replaces the worker', async () => {
    const pool = createSandboxPool({ workers: 1, timeoutMs: 5000 });
    try {
      expect((await pool.run({ code: 'x = 1', scripts: ['assert x == 1'] })).scripts[0]?.passed).toBe(true);
      const [pid] = pool.workerPids();
      const inFlight = pool.run({ code: 'import time\ntime.sleep(4)', scripts: ['pass'] });
      process.kill(-pid!, 'SIGKILL');
      const crashed = await inFlight;
      expect(crashed.failure).toMatch(/sandbox worker killed by SIGKILL during the job/);
      expect(crashed.scripts[0]?.passed).toBe(false);
      expect((await pool.run({ code: 'x = 2', scripts: ['assert x == 2'] })).scripts[0]?.passed).toBe(true);
      expect(pool.workerPids()).not.toContain(pid);
    } finally {
      await pool.close();
    }
  });

  it('kills and replaces a worker that stops answering, failing only its job', async () => {
    // The Node-side deadline is twice the wall backstop (wallFactor x timeoutMs) plus a margin:
    // a 2 s backstop keeps it at 6 s, and still leaves a loaded machine time to start the
    // replacement worker's script harness (its limit is CPU time, which load does not eat).
    const pool = createSandboxPool({ workers: 1, timeoutMs: 1000, wallFactor: 2 });
    try {
      await pool.run({ code: 'x = 1', scripts: ['pass'] });
      const [pid] = pool.workerPids();
      const inFlight = pool.run({ code: 'x = 1', scripts: ['pass'] });
      process.kill(-pid!, 'SIGSTOP'); // a frozen worker never replies; only the Node-side deadline can help
      const stuck = await inFlight;
      expect(stuck.failure).toMatch(/^timeout after 1000 ms \(sandbox worker stopped answering/);
      const next = await pool.run({ code: 'x = 2', scripts: ['assert x == 2'] });
      expect({ failure: next.failure, passed: next.scripts[0]?.passed }).toEqual({ failure: null, passed: true });
      expect(pool.workerPids()).not.toContain(pid);
    } finally {
      await pool.close();
    }
  });

  it('close() resolves queued jobs as failed and is idempotent', async () => {
    const pool = createSandboxPool({ workers: 1, timeoutMs: 1000 });
    const jobs = [pool.run({ code: 'x = 1', scripts: ['pass'] }), pool.run({ code: 'x = 2', scripts: ['pass'] })];
    await Promise.all([pool.close(), pool.close()]);
    for (const r of await Promise.all(jobs)) expect(r.failure).toBe('sandbox closed');
    expect((await pool.run({ code: 'x = 3', scripts: ['pass'] })).failure).toBe('sandbox closed');
  });
});

describe('code sandbox: process lifetime', () => {
  it('lets a plain Node script exit on its own, whether or not it calls close()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evo-grader-'));
    const entry = new URL('../../../src/tasks/graders/index.ts', import.meta.url).href;
    try {
      for (const closes of [true, false]) {
        const file = join(dir, `script-${closes}.mts`);
        writeFileSync(file, [
          `import { createCodeGrader } from ${JSON.stringify(entry)};`,
          'const g = createCodeGrader({ workers: 1 });',
          "const r = await g.runTests('x = 1', ['assert x == 1']);",
          "console.log('passed', r.passed);",
          closes ? "await g.close(); console.log('closed');" : '',
        ].join('\n'));
        // The timeout only turns a hang into a failure; nothing here measures speed.
        const res = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: PROJECT_DIR, encoding: 'utf8', timeout: 60_000 });
        expect(res.status).toBe(0);
        expect(res.stdout).toContain('passed 1');
        if (closes) expect(res.stdout).toContain('closed');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('code sandbox: fallback without bubblewrap', () => {
  // verdictCache off: these check the sandbox run itself, which a verdict the process has would skip.
  const weak = createCodeGrader({ workers: 1, timeoutMs: 30_000, isolation: 'fallback', allowUnsandboxed: true, verdictCache: false });
  afterAll(() => weak.close());

  it('still grades, and still refuses project files and sockets', async () => {
    expect(weak.isolation.mode).toBe('fallback');
    expect((await weak.grade(fenced(GOOD), addTask)).reward).toBe(1);
    const r = await weak.runTests('def read(p):\n    return open(p).read()', [`read(${JSON.stringify(PROJECT_FILE)})`]);
    expect(r.results[0]?.passed).toBe(false);
    const net = await weak.runTests('import _socket', ['_socket.socket()']);
    expect(net.passed).toBe(0);
    expect(r.timedOut || net.timedOut).toBe(false);
  });

  it('keeps its per-job directories in a directory of its own under TMPDIR, removed when the pool closes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'evo-fallback-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      const g = createCodeGrader({ workers: 1, timeoutMs: 30_000, isolation: 'fallback', allowUnsandboxed: true, verdictCache: false });
      expect((await g.grade(fenced(GOOD), addTask)).reward).toBe(1);
      const [own] = readdirSync(root);
      expect(own).toMatch(/^evochamber-sandbox-/);
      // An idle worker has forked the next job's processes ahead, each with its cand-* directory.
      while (!readdirSync(join(root, own!)).some((d) => d.startsWith('cand-'))) await new Promise((r) => setTimeout(r, 20));
      await g.close(); // kills the worker: it cannot clean up after itself
      expect(readdirSync(root)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('code grader: infrastructure failures', () => {
  it('rejects with InfrastructureError(grade) when the sandbox cannot run the job, instead of scoring 0', async () => {
    const g = createCodeGrader({ workers: 1 });
    await g.close();
    const err = await g.grade(fenced(GOOD), addTask).then(() => null, (e: unknown) => e);
    expect(isInfrastructureError(err)).toBe(true);
    expect((err as InfrastructureError).stage).toBe('grade');
  });
});

describe('code grader: missing python', () => {
  it('throws a clear error when the interpreter cannot be run', () => {
    expect(() => createCodeGrader({ python: '/nonexistent/python3' })).toThrow(/code niches need python3 on PATH/);
  });
});

describe('sandbox start-up cost', () => {
  it('resolves Python and plans the worker launch (the bubblewrap probe) once per process', async () => {
    const { resolvePython, planWorkerLaunch } = await import('../../../src/tasks/graders/sandbox-isolation');
    expect(resolvePython()).toBe(resolvePython());
    expect(planWorkerLaunch()).toBe(planWorkerLaunch());
    expect(planWorkerLaunch({ isolation: 'fallback', allowUnsandboxed: true })).not.toBe(planWorkerLaunch());
  });
});
