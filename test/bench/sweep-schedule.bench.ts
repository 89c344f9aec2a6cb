import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_ABLATION_VARIANTS, loadScenario, planSweep, runAblation, runScenario, withOverrides, type AblationResult } from '../../src/index';
import { RUN_CHILD_ENTRY } from '../../src/cli/composition';
import { QWEN3_8B_H100_VLLM } from '../../src/llm/latency-profiles';
import { predictSweep, runWork } from '../../src/engine/sweep/deadline-window';
import { DeadlineError } from '../../src/engine/sweep/sweep-schedule';
import { stat } from '../../src/engine/sweep/sweep-stat';

/**
 * `npm run bench -- sweep-schedule` (also under `-- sweep`): the hard table on ONE
 * `qwen3-8b-h100-vllm` virtual server with priorities off and critical-path, each without and with
 * `--deadline`; per configuration the sweep's virtual hours, utilization and output tokens/s beside
 * plan's prediction (the deadline model's fluid estimate), and each preset's accuracy against its solo
 * in-flight-1 runs (zero time, mean ± sd over the seeds). Goals (issue 34, for 12 × 3 × 600): ≤ 8
 * virtual hours at ≥ 85 % utilization; every preset within 1 point or its seeds' sd of solo; with
 * priorities only, the sweep within 5 % of its longest run alone; plan within 10 %. Figures only.
 *
 * Size: BENCH_SWEEP_TASKS (600), BENCH_SWEEP_SEEDS (3), BENCH_SWEEP_VARIANTS (every preset);
 * BENCH_SWEEP_DEADLINE (8 × tasks / 600 virtual hours, so a reduced table keeps the full one's
 * proportions).
 */
const TASKS = Number(process.env.BENCH_SWEEP_TASKS ?? 600);
const SEEDS = Number(process.env.BENCH_SWEEP_SEEDS ?? 3);
const VARIANTS = (process.env.BENCH_SWEEP_VARIANTS ?? DEFAULT_ABLATION_VARIANTS.join(',')).split(',').map((v) => v.trim());
const DEADLINE = Number(process.env.BENCH_SWEEP_DEADLINE ?? (8 * TASKS) / 600);
const PROFILE = 'qwen3-8b-h100-vllm';
const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-bench-schedule-'));

export async function benchSweepSchedule(): Promise<void> {
  const base = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: TASKS } });
  const timed = withOverrides(base, { model: { backend: 'sim', latency: PROFILE } } as never);
  const cores = availableParallelism();
  const full = TASKS === 600 && SEEDS === 3 && VARIANTS.length === DEFAULT_ABLATION_VARIANTS.length;
  console.log(`hard: ${VARIANTS.length} presets × ${SEEDS} seeds × ${TASKS} tasks on one ${PROFILE} virtual server${full ? '' : ' (REDUCED)'}; deadline ${DEADLINE.toFixed(2)} h`);

  // plan once, as ablate would (speculative off, as in a shared sweep); every configuration reuses it.
  let t0 = performance.now();
  const forecast = await planSweep(withOverrides(timed, { structures: { speculative: false } }), { variants: VARIANTS, seeds: SEEDS, latency: PROFILE });
  console.log(`plan: pilots of ${forecast.pilotTasks} tasks in ${((performance.now() - t0) / 1000).toFixed(0)} s; run after run ${forecast.total.virtualHours.toFixed(2)} h; at the profile's maximum rate ${forecast.total.hoursAtMaxRate?.toFixed(2) ?? '–'} h`);
  const work = runWork(forecast.runs, (r) => `${r.variant}/${r.seed}`);
  const longestPlanned = [...forecast.runs].sort((a, b) => b.virtualHours - a.virtualHours)[0]!;

  // Solo in-flight-1 runs (zero time: the accuracy a run has alone at in-flight 1).
  t0 = performance.now();
  const solo = await runAblation(withOverrides(base, { structures: { speculative: false } }), { variants: VARIANTS, seeds: SEEDS, jobs: cores, childEntry: RUN_CHILD_ENTRY, outDir: path.join(tmp(), 'solo') });
  console.log(`solo in-flight-1 runs (zero time, ${cores} processes): ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  // The longest run alone in virtual time: the floor of a sweep at in-flight 1.
  const alone = await runScenario(withOverrides(timed, { structures: { speculative: false } }), { variant: longestPlanned.variant, seed: longestPlanned.seed, outDir: path.join(tmp(), 'alone'), report: false });
  const longestAlone = (alone.summary.virtualSeconds ?? 0) / 3600;
  console.log(`longest run by plan: ${longestPlanned.variant} s${longestPlanned.seed}, ${longestPlanned.virtualHours.toFixed(2)} h predicted, ${longestAlone.toFixed(2)} h alone`);

  for (const priorities of ['off', 'critical-path'] as const) {
    for (const deadline of [undefined, DEADLINE]) {
      const label = `priorities ${priorities}${deadline === undefined ? ', every run at in-flight 1' : `, --deadline ${deadline.toFixed(2)}`}`;
      t0 = performance.now();
      let r: AblationResult;
      try {
        r = await runAblation(timed, {
          variants: VARIANTS, seeds: SEEDS, parallel: VARIANTS.length * SEEDS, priorities, forecast,
          ...(deadline !== undefined ? { deadlineHours: deadline } : {}), jobs: cores, childEntry: RUN_CHILD_ENTRY, outDir: path.join(tmp(), 'ablate'),
        });
      } catch (err) {
        if (!(err instanceof DeadlineError)) throw err;
        console.log(`\n${label}: refused: ${err.message}`);
        continue;
      }
      const v = r.execution!.virtual!;
      const hours = v.virtualSeconds / 3600;
      const predicted = r.deadline?.predictedHours ?? Math.max(...predictSweep(QWEN3_8B_H100_VLLM, work, new Map(), priorities === 'critical-path').values());
      console.log(`\n${label} (computed in ${((performance.now() - t0) / 1000).toFixed(0)} s):`);
      console.log(`   ${hours.toFixed(2)} virtual h (plan's model: ${predicted.toFixed(2)} h, ${(100 * (predicted / hours - 1)).toFixed(1)} %), ${v.tokensPerSecond.toFixed(0)} output tokens/s, utilization ${v.utilization === null ? '–' : `${(100 * v.utilization).toFixed(1)} %`}; ` +
        `${(100 * (hours / longestAlone - 1)).toFixed(1)} % over the longest run alone`);
      let within = 0;
      for (const variant of VARIANTS) {
        const a = r.variants[variant]!.accuracy;
        const s = solo.variants[variant]!.accuracy;
        const d = a.mean - s.mean;
        const ok = Math.abs(d) <= 0.01 || Math.abs(d) <= Math.max(s.sd, a.sd);
        if (ok) within++;
        const windows = r.deadline?.windows[variant]?.join(',') ?? '1';
        const h = stat(r.variants[variant]!.perSeed.map((p) => (p.virtualSeconds ?? 0) / 3600));
        console.log(`   ${variant.padEnd(18)} window ${windows.padEnd(8)} ${a.mean.toFixed(3)}±${a.sd.toFixed(3)} vs solo ${s.mean.toFixed(3)}±${s.sd.toFixed(3)} (${d >= 0 ? '+' : ''}${(100 * d).toFixed(1)} pt${ok ? '' : ', OUTSIDE'}) · ${h.mean.toFixed(2)} h/run`);
      }
      console.log(`   presets within 1 point or their seeds' sd of solo: ${within} of ${VARIANTS.length}`);
    }
  }
}

if (process.argv[1]?.endsWith('sweep-schedule.bench.ts')) await benchSweepSchedule();
