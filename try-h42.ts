import { createCodeGrader } from './src/tasks/graders';
const iso = (process.argv[2] ?? 'auto') as 'auto' | 'fallback';
const g = createCodeGrader({ workers: 1, timeoutMs: 2000, allowUnsandboxed: true, isolation: iso, verdictCache: false });
const cases: [string, string[]][] = [
  ['def f():\n    return range(0, 10**12)\n', ['assert sum(f()) == 5']],
  ['def f():\n    return 10**5000\n', ['assert f() == 10**5000', 'x = f()\nassert x == 10**5000']],
  ['def f(x):\n    raise StopIteration\n', ['assert all(map(f, [1, 2, 3]))']],
  ['class E(ValueError):\n    pass\ndef f():\n    raise E("no")\n', ['try:\n    f()\nexcept ValueError:\n    pass\nelse:\n    assert False']],
];
const t0 = Date.now();
for (const [code, tests] of cases) {
  const r = await g.runTests(code, tests);
  console.log(JSON.stringify(r.detail), r.results.map((x) => x.output.slice(0, 150)), Date.now() - t0);
}
await g.close();
