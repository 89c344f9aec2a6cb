// One measured run for `npm run bench -- speed`, in its own process so its CPU is its own:
// SCENARIO (a shipped name), VARIANT, TASKS [REPEATS]. Run with `node --expose-gc --import tsx`.
// Prints one JSON line: the CPU spent loading (module loading and set-up before the first run) and,
// for each run, this process's CPU and its children's (the sandbox's Python workers, checkers and
// planner, counted once the run's end has closed and reaped them), wall time, the heap after a full
// collection before and after, and the run window on the monotonic clock (microseconds, the clock a
// --cpu-prof profile's samples are stamped with).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { VERDICTS } from '../../src/tasks/graders/code-grader';

const [scenarioName, variant, tasksArg, repeatsArg] = process.argv.slice(2) as [string, string, string, string | undefined];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
/**
 * CPU of waited-for children and everything they waited for (the sandbox's workers with their
 * candidates, bubblewrap, the checkers), from /proc/self/stat cutime + cstime: clock ticks of 10 ms.
 * A child counts once it is reaped; a run closes its graders, so its children are in by its end.
 */
const childrenMs = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
};
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const gc = (globalThis as { gc?: () => void }).gc;
/** Heap used after a full collection, in MiB (NaN without --expose-gc). */
const heapMiB = () => { if (!gc) return NaN; gc(); return process.memoryUsage().heapUsed / 2 ** 20; };

const loadCpuMs = cpuMs();
const base = loadScenario(path.resolve(`scenarios/${scenarioName}.json`));
const runs: { tasks: number; accuracy: number; cpuMs: number; childrenCpuMs: number; wallMs: number; fromUs: number; toUs: number; verdictHits: number; verdictMisses: number; heapBeforeMiB: number; heapAfterMiB: number }[] = [];
for (let r = 0; r < Number(repeatsArg ?? 1); r++) {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-speed-'));
  const heapBeforeMiB = heapMiB();
  const c0 = cpuMs();
  const k0 = childrenMs();
  const h0 = { hits: VERDICTS.hits, misses: VERDICTS.misses };
  const fromUs = nowUs();
  const { summary } = await runScenario(base, { patch: { variant, 'stream.tasks': Number(tasksArg) }, report: false, outDir: dir });
  const toUs = nowUs();
  const cpu = cpuMs() - c0;
  const children = childrenMs() - k0;
  runs.push({
    tasks: summary.tasks, accuracy: summary.accuracy, cpuMs: cpu, childrenCpuMs: children, wallMs: (toUs - fromUs) / 1000, fromUs, toUs,
    verdictHits: VERDICTS.hits - h0.hits, verdictMisses: VERDICTS.misses - h0.misses, heapBeforeMiB, heapAfterMiB: heapMiB(),
  });
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ scenario: scenarioName, variant, loadCpuMs, maxRssMiB: process.resourceUsage().maxRSS / 1024, runs }));
