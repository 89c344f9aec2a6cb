import { parseArgs } from 'node:util';
import { RunStore, runState } from '../../store/run-store';
import type { RunSummary } from '../../engine/summary';
import { formatSummary } from '../format-summary';
import { UsageError } from '../usage';

/** Help text of `evochamber inspect`. */
export const INSPECT_HELP = `Usage: evochamber inspect <run-dir> [--json]

Show a run's state — running, interrupted, crashed (its process is gone), finished or
failed — and its summary, from run.json and run.lock.
`;

/** `evochamber inspect`. */
export async function inspectCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) { process.stdout.write(INSPECT_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('inspect takes exactly one run directory', INSPECT_HELP);
  const store = await RunStore.open(positionals[0]!);
  const d = store.data;
  const { state, lock, checkable } = runState(positionals[0]!, d.status);
  if (values.json) { process.stdout.write(`${JSON.stringify({ ...d, state, lock })}\n`); return; }
  const owner = lock && state === 'running' ? ` (pid ${lock.pid} on ${lock.host}${checkable ? '' : ', not checkable from here'})` : '';
  process.stdout.write(`run ${d.id} · ${state}${owner} · created ${d.createdAt}\n`);
  if (d.progress && state !== 'finished') process.stdout.write(`committed ${d.progress.committed}/${d.progress.total} tasks\n`);
  if (state === 'interrupted' || state === 'crashed') {
    process.stdout.write(`${state === 'crashed' ? 'its process is gone' : `stopped: ${d.interruptReason ?? 'interrupted'}`}; continue with: evochamber resume ${positionals[0]}\n`);
  }
  if (state === 'budget' && d.budgetStop) {
    const b = d.budgetStop;
    process.stdout.write(`stopped by its budget (${b.limit}: ${b.spent} spent of ${b.budget}); continue with a larger one: evochamber resume ${positionals[0]} --budget-${b.limit === 'completionTokens' ? 'completion-tokens' : b.limit} N\n`);
  }
  if (d.error) process.stdout.write(`error: ${d.error}\n`);
  if (d.summary) process.stdout.write(`${formatSummary(d.summary as unknown as RunSummary)}\n`);
}
