import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';

const TASKS = 360;
const SEEDS = [1, 2, 3];

/**
 * Eight tasks in flight reach the same accuracy within noise as one: evochamber on the quickstart,
 * 3 seeds × 360 tasks each way. A task in flight works from the pool as it was when it started, so
 * eight in flight learn from staler state; the claim is that this costs less than three standard
 * errors of the difference. Moved here from the suite (six 360-task runs, half a minute of CI each
 * time); unlike the other benches it checks its claim, and fails (exit 1) when it does not hold.
 * At the move: in flight 1 mean 0.763, in flight 8 mean 0.727, 3 s.e. = 0.056.
 */
export async function benchInFlight(): Promise<void> {
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  const acc: Record<number, number[]> = { 1: [], 8: [] };
  for (const inFlight of [1, 8]) {
    for (const seed of SEEDS) {
      const { summary } = await runScenario(base, { patch: { variant: 'evochamber', seed, 'stream.tasks': TASKS, 'engine.inFlight': inFlight }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-')) });
      if (summary.tasks !== TASKS || summary.poolVersion < TASKS) throw new Error(`in flight ${inFlight}, seed ${seed}: ${summary.tasks} tasks, pool version ${summary.poolVersion}`);
      acc[inFlight]!.push(summary.accuracy);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [a1, a8] = [mean(acc[1]!), mean(acc[8]!)];
  // Binomial standard error of the difference of two means over SEEDS × TASKS tasks each.
  const se = Math.sqrt((a1 * (1 - a1) + a8 * (1 - a8)) / (SEEDS.length * TASKS));
  console.log(`evochamber on quickstart, ${SEEDS.length} seeds × ${TASKS} tasks`);
  console.log(`in flight   ${SEEDS.map((s) => `seed ${s}`.padStart(8)).join('')}    mean`);
  for (const k of [1, 8]) console.log(`${String(k).padEnd(11)} ${acc[k]!.map((a) => a.toFixed(3).padStart(8)).join('')}${mean(acc[k]!).toFixed(3).padStart(8)}`);
  const ok = Math.abs(a1 - a8) < 3 * se;
  console.log(`|difference| ${Math.abs(a1 - a8).toFixed(3)} vs 3 s.e. ${(3 * se).toFixed(3)}: ${ok ? 'same within noise' : 'CLAIM FAILS'}`);
  if (!ok) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchInFlight();
