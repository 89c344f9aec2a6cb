import { pathToFileURL } from 'node:url';
import { createRng } from '../../src/index';
import { AdaptiveConcurrency } from '../../src/engine/loop/concurrency/adaptive';
import { autoConfigSchema } from '../../src/engine/scenario/auto-config';
import { fixedLimits, runStageLoop, type Limits, type Load } from '../fakes/stage-loop';

const TASKS = 600;
const SEEDS = [1, 2, 3];
/** Team size: sequences one task holds at once. */
const WEIGHT = 3;
/** Sequential rounds of generation per task (e.g. answer, then vote or revise). */
const ROUNDS = 2;
const JOBS_PER_TASK = 4;

/** LATENCY.md's qwen3-8b-h100-vllm decode step at about 1k context per sequence, ms. */
const stepMs = (sequences: number) => 7.2 + 0.035 * sequences + 0.055 * sequences;
/** Its most output tokens per second (1024 sequences). */
const MAX_TOKENS_PER_S = (1024 / stepMs(1024)) * 1000;

/** Log-normal output lengths: tasks median 1500 tokens (σ 0.8), evolve jobs median 300 (σ 0.5). */
function lengths(seed: number) {
  const rng = createRng(`${seed}/adaptive-bench`);
  const lognormal = (median: number, sigma: number) => {
    const u = Math.max(1e-12, rng.next());
    const v = rng.next();
    return Math.min(8 * median, median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)));
  };
  const task = Array.from({ length: TASKS }, () => lognormal(1500, 0.8));
  const job = Array.from({ length: TASKS * JOBS_PER_TASK }, () => lognormal(300, 0.5));
  return { task, job, tokens: task.reduce((a, b) => a + b * WEIGHT * ROUNDS, 0) + job.reduce((a, b) => a + b, 0) };
}

/**
 * The adaptive controller against fixed windows, on a synthetic closed loop (test/fakes/stage-loop.ts)
 * whose server follows the qwen3-8b-h100-vllm profile: a task holds 3 sequences for 2 rounds of a
 * log-normal output length, then queues 4 evolve jobs (reflections, note). A request's speed is
 * fixed by the server load when it starts. Prints virtual hours, speedup over one in flight,
 * server utilization (tokens/s over the profile's most), the mean version gap of applied evolve
 * items, and for `auto` the window it spent most commits at. A figure, not a claim: the engine's
 * own numbers come from `--latency` once the controller is wired in.
 */
export async function benchAdaptive(): Promise<void> {
  type Row = { hours: number[]; util: number[]; gap: number[]; window: number[] };
  const rows = new Map<string, Row>();
  const settings: [string, (seed: number) => Limits][] = [
    ...[1, 4, 8, 16, 32, 64, 128].map((w): [string, (seed: number) => Limits] => [`fixed ${w}`, () => fixedLimits(w, Math.max(4, 2 * w))]),
    ['auto, τ = ∞', () => new AdaptiveConcurrency(autoConfigSchema.parse({ max: 256 }), Infinity)],
    ['auto, no work', () => new AdaptiveConcurrency(autoConfigSchema.parse({ max: 256 }), Infinity)],
    ['auto, τ = 16', () => new AdaptiveConcurrency(autoConfigSchema.parse({ max: 256 }), 16)],
    ['auto, τ = 6', () => new AdaptiveConcurrency(autoConfigSchema.parse({ max: 256 }), 6)],
  ];
  for (const seed of SEEDS) {
    const len = lengths(seed);
    const load: Load = {
      tasks: TASKS, jobsPerTask: JOBS_PER_TASK, solveWeight: WEIGHT,
      solveSeconds: (n, i) => (ROUNDS * len.task[i]! * stepMs(n)) / 1000,
      evolveSeconds: (n, j) => (len.job[j]! * stepMs(n)) / 1000,
      tokens: { task: (i) => len.task[i]! * WEIGHT * ROUNDS, job: (j) => len.job[j]! },
    };
    for (const [name, make] of settings) {
      // `no work`: the controller is not told tokens, so it climbs on commits alone.
      const trace = runStageLoop(make(seed), name === 'auto, no work' ? { ...load, tokens: undefined } : load);
      const row = rows.get(name) ?? { hours: [], util: [], gap: [], window: [] };
      row.hours.push(trace.end / 3600);
      row.util.push(len.tokens / trace.end / MAX_TOKENS_PER_S);
      row.gap.push(trace.gaps.reduce((a, b) => a + b, 0) / Math.max(1, trace.gaps.length));
      const counts = new Map<number, number>();
      for (const w of trace.windows) counts.set(w, (counts.get(w) ?? 0) + 1);
      row.window.push([...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]);
      rows.set(name, row);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = mean(rows.get('fixed 1')!.hours);
  console.log(`synthetic closed loop, qwen3-8b-h100-vllm step model, ${TASKS} tasks × ${SEEDS.length} seeds (max ${Math.round(MAX_TOKENS_PER_S)} tok/s)`);
  console.log(`${'window'.padEnd(14)}${'hours'.padStart(8)}${'speedup'.padStart(9)}${'util'.padStart(7)}${'gap'.padStart(7)}  modal window`);
  for (const [name, r] of rows) {
    console.log(`${name.padEnd(14)}${mean(r.hours).toFixed(2).padStart(8)}${(base / mean(r.hours)).toFixed(1).padStart(8)}×${(100 * mean(r.util)).toFixed(0).padStart(6)}%${mean(r.gap).toFixed(1).padStart(7)}  ${r.window.join(', ')}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchAdaptive();
