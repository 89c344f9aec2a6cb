import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_ABLATION_VARIANTS, loadScenario, runAblation, runScenario, type AblationResult } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { planSweep } from '../../src/engine/sweep/plan';
import { RUN_CHILD_ENTRY } from '../../src/cli/composition';
import { QWEN3_8B_H100_VLLM, predictedStepMs } from '../../src/llm/latency-profiles';
import { predictSweep, runWork } from '../../src/engine/sweep/deadline-window';
import { DeadlineError } from '../../src/engine/sweep/sweep-schedule';
import { stat } from '../../src/core/stats/mean-sd';

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
 * proportions); BENCH_SWEEP_CONFIGS (`off+in-flight-1`, `off+deadline`, `critical-path+in-flight-1`,
 * `critical-path+deadline`, comma-separated; default all four). Runs write under the OS temporary
 * folder: TMPDIR=/dev/shm/… keeps their many small writes off the disk.
 */
const TASKS = Number(process.env.BENCH_SWEEP_TASKS ?? 600);
const SEEDS = Number(process.env.BENCH_SWEEP_SEEDS ?? 3);
const VARIANTS = (process.env.BENCH_SWEEP_VARIANTS ?? DEFAULT_ABLATION_VARIANTS.join(',')).split(',').map((v) => v.trim());
const DEADLINE = Number(process.env.BENCH_SWEEP_DEADLINE ?? (8 * TASKS) / 600);
/** BENCH_SWEEP_CONFIGS: which configurations run, e.g. `off+deadline,critical-path+deadline` (default: all four). */
const CONFIGS = process.env.BENCH_SWEEP_CONFIGS?.split(',').map((c) => c.trim());
const PROFILE = 'qwen3-8b-h100-vllm';
/** BENCH_SWEEP_SAVE: a folder that keeps plan's forecast and each configuration's per-run hours, to score a later model against. */
const SAVE = process.env.BENCH_SWEEP_SAVE;
const save = (name: string, data: unknown) => { if (SAVE) { mkdirSync(SAVE, { recursive: true }); writeFileSync(path.join(SAVE, name), JSON.stringify(data, null, 1)); } };
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
  save('forecast.json', forecast);
  const work = runWork(forecast.runs, (r) => `${r.variant}/${r.seed}`);

  // Solo in-flight-1 runs (zero time: the accuracy a run has alone at in-flight 1).
  t0 = performance.now();
  const solo = await runAblation(withOverrides(base, { structures: { speculative: false } }), { variants: VARIANTS, seeds: SEEDS, patch: { 'sweep.jobs': cores }, childEntry: RUN_CHILD_ENTRY, outDir: path.join(tmp(), 'solo') });
  console.log(`solo in-flight-1 runs (zero time, ${cores} processes): ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  // The longest run alone in virtual time (the floor of a sweep at in-flight 1), measured on the three
  // runs that took longest in the first sweep (plan's own ranking errs by up to a fifth per run).
  let longestAlone = 0;
  const measureLongest = async (r: AblationResult) => {
    const byHours = VARIANTS.flatMap((variant) => r.variants[variant]!.perSeed.map((p) => ({ variant, seed: p.seed, h: p.virtualSeconds ?? 0 }))).sort((a, b) => b.h - a.h).slice(0, 3);
    for (const { variant, seed } of byHours) {
      const alone = await runScenario(withOverrides(timed, { structures: { speculative: false } }), { patch: { variant, seed }, outDir: path.join(tmp(), 'alone'), report: false });
      const h = (alone.summary.virtualSeconds ?? 0) / 3600;
      const planned = forecast.runs.find((x) => x.variant === variant && x.seed === seed)!.virtualHours;
      console.log(`   alone: ${variant} s${seed} ${h.toFixed(2)} h (plan ${planned.toFixed(2)} h)`);
      longestAlone = Math.max(longestAlone, h);
      save(`alone-${variant}-${seed}.json`, alone.summary);
    }
    console.log(`   the longest run alone: ${longestAlone.toFixed(2)} h`);
  };

  for (const priorities of ['off', 'critical-path'] as const) {
    for (const deadline of [undefined, DEADLINE]) {
      if (CONFIGS && !CONFIGS.includes(`${priorities}+${deadline === undefined ? 'in-flight-1' : 'deadline'}`)) continue;
      const label = `priorities ${priorities}${deadline === undefined ? ', every run at in-flight 1' : `, --deadline ${deadline.toFixed(2)}`}`;
      t0 = performance.now();
      let r: AblationResult;
      try {
        r = await runAblation(timed, {
          variants: VARIANTS, seeds: SEEDS, forecast,
          patch: { 'sweep.parallel': VARIANTS.length * SEEDS, 'sweep.priorities': priorities, 'sweep.deadlineHours': deadline, 'sweep.jobs': cores }, childEntry: RUN_CHILD_ENTRY, outDir: path.join(tmp(), 'ablate'),
        });
      } catch (err) {
        if (!(err instanceof DeadlineError)) throw err;
        console.log(`\n${label}: refused: ${err.message}`);
        continue;
      }
      if (longestAlone === 0) await measureLongest(r);
      const v = r.execution!.virtual!;
      const hours = v.virtualSeconds / 3600;
      save(`sweep-${priorities}-${deadline === undefined ? 'none' : 'deadline'}.json`, {
        virtual: r.execution!.virtual, deadline: r.deadline ?? null,
        runs: VARIANTS.flatMap((variant) => r.variants[variant]!.perSeed.map((p) => ({ variant, seed: p.seed, virtualSeconds: p.virtualSeconds ?? null }))),
      });
      const predicted = r.deadline?.predictedHours ?? Math.max(...predictSweep(QWEN3_8B_H100_VLLM, work, new Map(), priorities === 'critical-path').values());
      console.log(`\n${label} (computed in ${((performance.now() - t0) / 1000).toFixed(0)} s):`);
      console.log(`   ${hours.toFixed(2)} virtual h (plan's model: ${predicted.toFixed(2)} h, ${(100 * (predicted / hours - 1)).toFixed(1)} %), ${v.tokensPerSecond.toFixed(0)} output tokens/s, utilization ${v.utilization === null ? '–' : `${(100 * v.utilization).toFixed(1)} %`}; ` +
        `${(100 * (hours / longestAlone - 1)).toFixed(1)} % over the longest run alone`);
      // What bounds "as short as the longest run alone": every sequence of a continuous batch waits for
      // the same steps, so the batch's mean step over a lone run's step slows every run alike.
      // Each sequence at its token-weighted decode context (plan's decodeContext, weighted by the runs' output).
      const ctx = forecast.runs.reduce((a, r) => a + r.completionTokens * (r.decodeContext ?? r.promptTokens / Math.max(1, r.calls) + r.completionTokens / Math.max(1, r.calls) / 2), 0) / Math.max(1, forecast.total.completionTokens);
      let seqs = 1;
      for (let i = 0; i < 8; i++) seqs = (v.tokensPerSecond * predictedStepMs(QWEN3_8B_H100_VLLM, seqs, ctx)) / 1000;
      console.log(`   about ${seqs.toFixed(0)} sequences decode at once: a step takes ${predictedStepMs(QWEN3_8B_H100_VLLM, seqs, ctx).toFixed(1)} ms against ${predictedStepMs(QWEN3_8B_H100_VLLM, 3, ctx).toFixed(1)} ms for a run alone (3 at once)`);
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
