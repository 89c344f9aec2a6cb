import type { z } from 'zod';
import { EVENT_LEVELS, EVENTS_VERSION } from './catalogue';

/** What each level of the catalogue covers (the docs' headings). */
const LEVEL_TITLES: Record<keyof typeof EVENT_LEVELS, string> = {
  run: 'Run: start, end, and the process around it',
  task: 'Task: one task from start to commit',
  team: 'Team: who works on a task, in which structure',
  individual: 'Individual: one agent\'s reflections, lessons, competence',
  population: 'Population: CoDream, routing, staleness, the roster\'s lifecycle',
  engine: 'Engine: how the loop ran',
  meta: 'Meta: the harness that edits the procedure between segments',
};

/** A field as the table shows it: its name, `?` when a line may lack it. */
function fieldList(shape: z.ZodRawShape): string {
  return Object.entries(shape)
    .filter(([k]) => k !== 'type')
    .map(([k, s]) => `\`${k}${(s as z.ZodType).safeParse(undefined).success ? '?' : ''}\``)
    .join(', ');
}

/**
 * The catalogue as Markdown: one table per level (type, fields, what it says). docs/runs-on-disk.md
 * holds this text between its `events:begin` and `events:end` markers, and a test fails when the two
 * differ (`evochamber schema events --markdown` prints it).
 */
export function eventsMarkdown(): string {
  const out: string[] = [
    `Events version ${EVENTS_VERSION}. Every line also has \`id\`, \`seq\`, and \`time\` (when the run has a clock) and \`procedure\` (meta-editing runs); \`?\`: a line may lack the field.`,
  ];
  for (const [level, defs] of Object.entries(EVENT_LEVELS) as [keyof typeof EVENT_LEVELS, (typeof EVENT_LEVELS)[keyof typeof EVENT_LEVELS]][]) {
    out.push('', `**${LEVEL_TITLES[level]}**`, '', '| type | fields | what it says |', '|---|---|---|');
    for (const d of defs) out.push(`| \`${d.type}\` | ${fieldList(d.body.shape)} | ${d.description.replace(/\|/g, '\\|')} |`);
  }
  return `${out.join('\n')}\n`;
}
