import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ABLATION_PLAN_FILE } from '../../engine/sweep/ablate';
import { RunStore, runState, type RunState } from '../../store/run-store';
import type { RunSummary } from '../../engine/loop/summary';
import { formatSummary } from '../format-summary';
import { UsageError } from '../usage';

/** Help text of `evochamber inspect`. */
export const INSPECT_HELP = `Usage: evochamber inspect <run-dir | ablate-dir> [--json]

Show a run's state — running, interrupted, stopped by its budget, crashed (its process is gone),
finished or failed — and its summary, from run.json and run.lock. Given an ablation's directory,
one line per run: its state, tasks committed and accuracy so far.
`;

/** `evochamber inspect`. */
export async function inspectCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) { process.stdout.write(INSPECT_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('inspect takes exactly one run or ablation directory', INSPECT_HELP);
  const dir = positionals[0]!;
  if (existsSync(path.join(dir, ABLATION_PLAN_FILE))) { await inspectAblation(dir, values.json ?? false); return; }
  if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${dir}: neither a run (no run.json) nor an ablation (no ${ABLATION_PLAN_FILE})`);
  const store = await RunStore.open(dir);
  const d = store.data;
  const { state, lock, checkable } = runState(dir, d.status);
  if (values.json) { process.stdout.write(`${JSON.stringify({ ...d, state, lock })}\n`); return; }
  const owner = lock && state === 'running' ? ` (pid ${lock.pid} on ${lock.host}${checkable ? '' : ', not checkable from here'})` : '';
  process.stdout.write(`run ${d.id} · ${state}${owner} · created ${d.createdAt}\n`);
  if (d.progress && state !== 'finished') process.stdout.write(`committed ${d.progress.committed}/${d.progress.total} tasks\n`);
  if (state === 'interrupted' || state === 'crashed') {
    process.stdout.write(`${state === 'crashed' ? 'its process is gone' : `stopped: ${d.interruptReason ?? 'interrupted'}`}; continue with: evochamber resume ${dir}\n`);
  }
  if (state === 'budget' && d.budgetStop) {
    const b = d.budgetStop;
    process.stdout.write(`stopped by its budget (${b.limit}: ${b.spent} spent of ${b.budget}); continue with a larger one: evochamber resume ${dir} --budget-${b.limit === 'completionTokens' ? 'completion-tokens' : b.limit} N\n`);
  }
  if (d.error) process.stdout.write(`error: ${d.error}\n`);
  if (d.summary) process.stdout.write(`${formatSummary(d.summary as unknown as RunSummary)}\n`);
}

/** One run of an ablation, as `inspect` shows it. */
interface RunRow {
  readonly run: string;
  readonly state: RunState | 'not started';
  readonly committed: number | null;
  readonly total: number | null;
  readonly accuracy: number | null;
}

/** An ablation's runs (`<variant>-s<seed>` directories), each with its state and progress; done when ablation.json exists. */
async function inspectAblation(dir: string, json: boolean): Promise<void> {
  const plan = JSON.parse(readFileSync(path.join(dir, ABLATION_PLAN_FILE), 'utf8')) as { variants: string[]; seeds: number; config?: { seed?: number; name?: string } };
  const first = plan.config?.seed ?? 1;
  const rows: RunRow[] = [];
  for (const variant of plan.variants) {
    for (let i = 0; i < plan.seeds; i++) {
      const run = `${variant}-s${first + i}`;
      const runDir = path.join(dir, run);
      if (!existsSync(path.join(runDir, 'run.json'))) { rows.push({ run, state: 'not started', committed: null, total: null, accuracy: null }); continue; }
      const d = (await RunStore.open(runDir)).data;
      const summary = d.summary as { tasks?: number; accuracy?: number } | null;
      rows.push({
        run, state: runState(runDir, d.status).state,
        committed: d.progress?.committed ?? summary?.tasks ?? null, total: d.progress?.total ?? (d.config as { stream?: { tasks?: number } }).stream?.tasks ?? null,
        accuracy: summary?.accuracy ?? null,
      });
    }
  }
  const done = existsSync(path.join(dir, 'ablation.json'));
  if (json) { process.stdout.write(`${JSON.stringify({ ablation: dir, scenario: plan.config?.name ?? null, finished: done, runs: rows })}\n`); return; }
  const count = (s: RowState) => rows.filter((r) => r.state === s).length;
  // Every state a run is in is counted, so the counts add up to the runs (an interrupted or crashed run is never left out).
  const counts = ROW_STATES.filter((st) => st === 'finished' || st === 'not started' || count(st) > 0).map((st) => `${count(st)} ${st === 'budget' ? 'stopped by their budget' : st}`);
  process.stdout.write(`ablation of ${plan.config?.name ?? 'a scenario'} · ${done ? 'finished' : 'not finished'} · ${rows.length} runs: ${counts.join(', ')}\n`);
  const w = Math.max(...rows.map((r) => r.run.length));
  for (const r of rows) {
    const progress = r.committed === null ? '' : `  ${r.committed}/${r.total ?? '?'} tasks`;
    const acc = r.accuracy === null ? '' : `  accuracy ${r.accuracy.toFixed(3)}`;
    process.stdout.write(`  ${r.run.padEnd(w)}  ${r.state}${progress}${acc}\n`);
  }
  if (!done) process.stdout.write(`continue with: evochamber resume ${dir}\n`);
}

type RowState = RunRow['state'];

/** The states of an ablation's runs, in the order inspect counts them. */
const ROW_STATES: readonly RowState[] = ['finished', 'running', 'interrupted', 'crashed', 'budget', 'failed', 'not started'];
