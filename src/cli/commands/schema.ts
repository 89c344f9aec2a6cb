import { parseArgs } from 'node:util';
import { eventsJsonSchema, eventsMarkdown } from '../../store/events';
import { UsageError } from '../usage';

/** Help text of `evochamber schema`. */
export const SCHEMA_HELP = `Usage: evochamber schema events [--markdown]

Print the JSON Schema (draft 2020-12) of a line of a run's events.jsonl: every event type the
engine writes, each with its fields (src/store/events/). A notebook or another tool can validate a
run's log with it. Readers skip event types they do not know, so a newer run's log still reads.

Options:
  --markdown   print the catalogue as the Markdown tables of docs/runs-on-disk.md instead
`;

/** `evochamber schema`. */
export async function schemaCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { markdown: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) { process.stdout.write(SCHEMA_HELP); return; }
  if (positionals.length !== 1 || positionals[0] !== 'events') throw new UsageError(`schema takes one argument, "events" (got ${positionals.length ? `"${positionals.join(' ')}"` : 'none'})`, SCHEMA_HELP);
  process.stdout.write(values.markdown ? eventsMarkdown() : `${JSON.stringify(eventsJsonSchema(), null, 2)}\n`);
}
