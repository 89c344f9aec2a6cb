// One measured run for `npm run bench -- speed`, in its own process so its CPU is its own:
// SCENARIO (a shipped name), VARIANT, TASKS [REPEATS]. Prints one JSON line: the CPU spent loading
// (module loading and set-up before the first run), each run's CPU (this process; the sandbox's
// Python workers apart, as `childrenCpuMs`), wall time, and the run window on the monotonic clock
// (microseconds, the clock a --cpu-prof profile's samples are stamped with).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { VERDICTS } from '../../src/tasks/graders/code-grader';

const [scenarioName, variant, tasksArg, repeatsArg] = process.argv.slice(2) as [string, string, string, string | undefined];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
/** CPU of waited-for children (the sandbox workers, once closed): /proc/self/stat cutime + cstime, in clock ticks of 10 ms. */
const childrenMs = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
};
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

const loadCpuMs = cpuMs();
const base = loadScenario(path.resolve(`scenarios/${scenarioName}.json`));
const runs: { tasks: number; accuracy: number; cpuMs: number; childrenCpuMs: number; wallMs: number; fromUs: number; toUs: number; verdictHits: number; verdictMisses: number }[] = [];
for (let r = 0; r < Number(repeatsArg ?? 1); r++) {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-speed-'));
  const c0 = cpuMs();
  const k0 = childrenMs();
  const h0 = { hits: VERDICTS.hits, misses: VERDICTS.misses };
  const fromUs = nowUs();
  const { summary } = await runScenario(base, { variant, tasks: Number(tasksArg), report: false, outDir: dir });
  const toUs = nowUs();
  runs.push({
    tasks: summary.tasks, accuracy: summary.accuracy, cpuMs: cpuMs() - c0, childrenCpuMs: childrenMs() - k0, wallMs: (toUs - fromUs) / 1000, fromUs, toUs,
    verdictHits: VERDICTS.hits - h0.hits, verdictMisses: VERDICTS.misses - h0.misses,
  });
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ scenario: scenarioName, variant, loadCpuMs, runs }));
