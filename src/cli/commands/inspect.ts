import { parseArgs } from 'node:util';
import { RunStore } from '../../store/run-store';
import type { RunSummary } from '../../engine/summary';
import { formatSummary } from '../format-summary';
import { UsageError } from '../usage';

/** Help text of `evochamber inspect`. */
export const INSPECT_HELP = `Usage: evochamber inspect <run-dir> [--json]

Show a run's status, configuration and summary from its run.json.
`;

/** `evochamber inspect`. */
export async function inspectCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) { process.stdout.write(INSPECT_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('inspect takes exactly one run directory', INSPECT_HELP);
  const store = await RunStore.open(positionals[0]!);
  const d = store.data;
  if (values.json) { process.stdout.write(`${JSON.stringify(d)}\n`); return; }
  process.stdout.write(`run ${d.id} · ${d.status} · created ${d.createdAt}\n`);
  if (d.error) process.stdout.write(`error: ${d.error}\n`);
  if (d.summary) process.stdout.write(`${formatSummary(d.summary as unknown as RunSummary)}\n`);
}
