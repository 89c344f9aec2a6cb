import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `npm run bench -- async`: the async engine's throughput in virtual time. The hard stream (600
 * tasks, seeds 1–3) runs on the simulated model behind the `qwen3-8b-h100-vllm` batching model
 * (`--latency`), sequential (one task in flight, each evolve stage applied before the next task),
 * with fixed windows of 4–64 tasks and with `auto`, each window crossed with the three staleness
 * policies, and each under both evolve timings (`lag`, the default, and `when-ready`). It prints virtual hours, speedup over sequential (tasks per virtual hour), accuracy
 * mean ± sd over seeds, tokens, and server utilization, then checks the goal: the best
 * configuration at ≥ 6× sequential throughput, accuracy within 1 point of sequential, ≥ 85 % of the
 * server's maximum tokens/s — and says what bounds it when it is not met. Figures only: it never
 * fails on them. Runs are child processes of the CLI, as many at once as there are cores.
 *
 * Environment: BENCH_ASYNC_TASKS (600), BENCH_ASYNC_SEEDS (3), BENCH_ASYNC_WINDOWS ("4,8,16,32,64"),
 * BENCH_ASYNC_POLICIES ("full,guarded,reflective"), BENCH_ASYNC_SCENARIO (scenarios/hard.json),
 * BENCH_ASYNC_AUTO=0 (leave out the `auto` rows), BENCH_ASYNC_TIMING ("lag,when-ready"),
 * BENCH_ASYNC_SEQUENTIAL=0 (leave out the sequential baseline; speedups are then relative to the first row).
 */
const TASKS = Number(process.env.BENCH_ASYNC_TASKS ?? 600);
const SEEDS = Array.from({ length: Number(process.env.BENCH_ASYNC_SEEDS ?? 3) }, (_, i) => i + 1);
const WINDOWS = (process.env.BENCH_ASYNC_WINDOWS ?? '4,8,16,32,64').split(',').map((w) => w.trim());
const POLICIES = (process.env.BENCH_ASYNC_POLICIES ?? 'full,guarded,reflective').split(',').map((p) => p.trim());
const SCENARIO = process.env.BENCH_ASYNC_SCENARIO ?? 'scenarios/hard.json';
const TIMINGS = (process.env.BENCH_ASYNC_TIMING ?? 'lag,when-ready').split(',').map((t) => t.trim());
const PROFILE = 'qwen3-8b-h100-vllm';

interface Summary {
  accuracy: number;
  tasks: number;
  failures: number;
  virtualSeconds?: number;
  tokensPerSecond?: number;
  utilization?: number | null;
  tokens: { total: { completionTokens: number; promptTokens: number } };
  speculative?: { tokensSaved?: number; cancelled?: number };
  staleness?: { kept: number; patched: number; dropped: number };
  evolve?: { meanGap: number };
}

interface Setting { readonly window: string; readonly policy: string; readonly timing: string }

function runOne(s: Setting, seed: number): Promise<Summary> {
  const out = mkdtempSync(path.join(tmpdir(), 'evo-async-'));
  const args = [
    '--import', 'tsx', 'src/cli/main.ts', 'run', SCENARIO, '--seed', String(seed), '--tasks', String(TASKS),
    '--in-flight', s.window, '--latency', PROFILE, '--staleness', s.policy, '--evolve-timing', s.timing,
    '--json', '--quiet', '--no-report', '--out', path.join(out, 'run'),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('close', (code) => {
      rmSync(out, { recursive: true, force: true });
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        const summary = JSON.parse(last) as Summary;
        if (code !== 0 && code !== 3) throw new Error(`exit ${code}`);
        resolve(summary);
      } catch (e) {
        reject(new Error(`window ${s.window} ${s.policy} seed ${seed}: ${(e as Error).message}\n${stderr.slice(-2000)}`));
      }
    });
  });
}

async function pool<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  }));
  return results;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sd = (xs: number[]) => { const m = mean(xs); return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1)); };

export async function benchAsync(): Promise<void> {
  const settings: Setting[] = process.env.BENCH_ASYNC_SEQUENTIAL === '0' ? [] : [{ window: '1', policy: 'full', timing: 'lag' }];
  for (const t of TIMINGS) {
    for (const w of [...WINDOWS, ...(process.env.BENCH_ASYNC_AUTO === '0' ? [] : ['auto'])]) for (const p of POLICIES) settings.push({ window: w, policy: p, timing: t });
  }
  const jobs = settings.flatMap((s) => SEEDS.map((seed) => () => runOne(s, seed).then((r) => {
    process.stderr.write(`  ${s.window === '1' ? 'sequential' : `window ${s.window} ${s.timing}`} ${s.policy} seed ${seed}: accuracy ${r.accuracy.toFixed(3)}, ${((r.virtualSeconds ?? 0) / 3600).toFixed(2)} virtual h\n`);
    return { s, seed, r };
  })));
  const t0 = performance.now();
  const results = await pool(jobs, Math.max(1, availableParallelism()));
  const rows = settings.map((s) => {
    const rs = results.filter((x) => x.s === s).map((x) => x.r);
    const hours = mean(rs.map((r) => (r.virtualSeconds ?? NaN) / 3600));
    return {
      s, hours, tasksPerHour: mean(rs.map((r) => r.tasks / ((r.virtualSeconds ?? NaN) / 3600))),
      acc: rs.map((r) => r.accuracy),
      tokens: mean(rs.map((r) => r.tokens.total.completionTokens + r.tokens.total.promptTokens)),
      completion: mean(rs.map((r) => r.tokens.total.completionTokens)),
      tokS: mean(rs.map((r) => r.tokensPerSecond ?? NaN)),
      util: mean(rs.map((r) => r.utilization ?? NaN)),
      saved: mean(rs.map((r) => r.speculative?.tokensSaved ?? 0)),
      gap: mean(rs.map((r) => r.evolve?.meanGap ?? 0)),
      dropped: mean(rs.map((r) => r.staleness?.dropped ?? 0)),
      patched: mean(rs.map((r) => r.staleness?.patched ?? 0)),
    };
  });
  const seq = rows.find((r) => r.s.window === '1') ?? rows[0]!;
  const k = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(0)}k`);
  console.log(`${SCENARIO}, ${TASKS} tasks × ${SEEDS.length} seeds, --latency ${PROFILE} (virtual time); ${((performance.now() - t0) / 60000).toFixed(1)} min of bench time`);
  console.log('| window | evolve timing | staleness | virtual h | speedup | accuracy | tokens (prompt+completion) | gen tok/s | utilization | mean gap | dropped / patched | spec. saved |');
  console.log('| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const name = r.s.window === '1' ? 'sequential' : r.s.window;
    console.log(`| ${name} | ${r.s.window === '1' ? '—' : r.s.timing} | ${r.s.window === '1' ? '—' : r.s.policy} | ${r.hours.toFixed(2)} | ${(r.tasksPerHour / seq.tasksPerHour).toFixed(2)}× | ${mean(r.acc).toFixed(3)} ± ${sd(r.acc).toFixed(3)} | ${k(r.tokens)} | ${r.tokS.toFixed(0)} | ${(100 * r.util).toFixed(1)} % | ${r.gap.toFixed(1)} | ${r.dropped.toFixed(0)} / ${r.patched.toFixed(0)} | ${k(r.saved)} |`);
  }
  // The goal: ≥ 6× sequential throughput, accuracy within 1 point of sequential, ≥ 85 % utilization.
  const seqAcc = mean(seq.acc);
  const others = rows.filter((r) => r !== seq);
  const eligible = others.filter((r) => mean(r.acc) >= seqAcc - 0.01);
  const best = [...eligible].sort((a, b) => b.tasksPerHour - a.tasksPerHour)[0];
  const fastest = [...others].sort((a, b) => b.tasksPerHour - a.tasksPerHour)[0]!;
  const describe = (r: typeof seq) => `window ${r.s.window} / ${r.s.timing} / ${r.s.policy}: ${(r.tasksPerHour / seq.tasksPerHour).toFixed(2)}×, accuracy ${mean(r.acc).toFixed(3)} (sequential ${seqAcc.toFixed(3)}), utilization ${(100 * r.util).toFixed(1)} %`;
  if (!best) {
    console.log(`goal not met: no configuration stays within 1 point of sequential accuracy; the fastest is ${describe(fastest)}`);
    return;
  }
  const met = best.tasksPerHour / seq.tasksPerHour >= 6 && best.util >= 0.85;
  console.log(`best within 1 point of sequential accuracy: ${describe(best)} — goal (≥ 6×, ≥ 85 %) ${met ? 'met' : 'NOT met'}`);
  if (!met) {
    console.log(`fastest overall: ${describe(fastest)}`);
    console.log('what bounds it: utilization is achieved over maximum generated tokens/s of the profile (docs/latency-profiles.md); a window of W tasks keeps at most about 3·W requests running, and each task\'s stages run one after another, so the batch only fills when W is large — where staleness grows and accuracy falls.');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchAsync();
