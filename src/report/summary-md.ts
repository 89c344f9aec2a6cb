import type { Table } from './charts/section';
import { fmt3, fmtCount } from './charts/section';
import { anchorTable } from './charts/specialist-charts';
import type { ReportData } from './report-data';
import { patchLines } from './reproduce';
import { logWarnings } from './run-report';

/** A Markdown table, cells padded so it also reads in a terminal. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers.map(String), ...rows.map((r) => r.map((c) => String(c).replace(/\|/g, '\\|').replace(/\n/g, ' ')))];
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => `| ${widths.map((w, i) => (r[i] ?? '').padEnd(w)).join(' | ')} |`;
  return [line(cells[0]!), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

function tableMd(t: Table): string {
  return `${markdownTable(t.headers, t.rows)}\n`;
}

/** Tokens per stage; a `truncated` column only when some reply was cut off by the token limit with no answer. */
function tokensTable(d: ReportData): string {
  const truncated = d.cost.stages.some((s) => s.truncated);
  return tableMd({
    caption: '',
    headers: ['stage', 'calls', 'prompt', 'completion', ...(truncated ? ['truncated'] : [])],
    rows: d.cost.stages.map((s) => [s.stage, s.calls, fmtCount(s.promptTokens), fmtCount(s.completionTokens), ...(truncated ? [s.truncated ?? 0] : [])]),
  });
}

/** `summary.md`: the run's headline numbers and tables, readable in a terminal or a pull request. */
export function runSummaryMarkdown(d: ReportData): string {
  const a = d.accuracy;
  const origins = new Map<string, number>();
  for (const x of d.agents) origins.set(x.origin, (origins.get(x.origin) ?? 0) + 1);
  const operators = new Map<string, number>();
  for (const x of d.lineage.decisions) operators.set(x.operator, (operators.get(x.operator) ?? 0) + 1);
  const sessions = d.codream.sessions.reduce((s, x) => s + x.count, 0);
  const structures = [...new Set(Object.values(d.structures.totals).flatMap((m) => Object.keys(m)))].sort();
  const totalTokens = d.cost.stages.reduce((s, x) => s + x.promptTokens + x.completionTokens, 0);
  const out = [
    `# EvoChamber report: ${d.run.scenario} · ${d.run.variant} · seed ${d.run.seed}`,
    '',
    `Run \`${d.run.id}\` · ${d.run.tasksDone} tasks · ${d.agents.length} agents · backend ${d.run.backend ?? 'unknown'}`,
    '',
    `**Accuracy ${fmt3(a.overall)}** (mean reward; exact ${fmt3(a.exactRate)}) · tokens ${fmtCount(totalTokens)} · ${d.cost.wallSeconds === null ? 'wall time unknown' : `${d.cost.wallSeconds.toFixed(2)} s wall, ${d.cost.tasksPerSecond} tasks/s`}`,
    '',
    ...logWarnings(d).map((w) => `> ⚠ ${w}\n`),
    '## Accuracy per niche',
    '',
    markdownTable(['niche', 'tasks', 'mean reward', 'exact'], a.perNiche.map((p) => [p.niche, p.tasks, fmt3(p.mean), fmt3(p.tasks ? p.correct / p.tasks : null)])),
    '',
    '## Specialists',
    '',
    markdownTable(['niche', 'anchor', 'competence', 'windows anchored', 'anchor changes'], anchorTable(d)),
    '',
    '## Lineage',
    '',
    markdownTable(['origin', 'agents'], [...origins]),
    '',
    d.lineage.decisions.length
      ? markdownTable(['operator', 'decisions'], [...operators])
      : 'No lifecycle decisions in this run.',
    '',
    `Retired: ${d.lineage.retirements.length} · persona rewrites: ${d.lineage.personas.length}`,
    '',
    '## CoDream',
    '',
    sessions || d.codream.routed
      ? [
        `Sessions ${sessions} · insights kept ${Object.values(d.codream.insightsByLevel).reduce((s, n) => s + n, 0)} · routed ${d.codream.routed}`,
        '',
        markdownTable(['level', 'insights kept'], Object.entries(d.codream.insightsByLevel)),
      ].join('\n')
      : 'No CoDream in this run.',
    '',
    '## Structures per niche',
    '',
    structures.length
      ? markdownTable(['niche', ...structures], Object.entries(d.structures.totals).map(([n, m]) => [n, ...structures.map((s) => m[s] ?? 0)]))
      : 'No structure choices logged.',
    '',
    '## Tokens per stage',
    '',
    tokensTable(d),
    d.cost.source === 'events' ? '_From the event log (solve and CoDream only): the run has no summary._\n' : '',
    '## Reproduce',
    '',
    '```sh',
    d.reproduce.command,
    `# or, from the original scenario file: ${d.reproduce.fromOriginal}`,
    '```',
    '',
    'What the run changed in its scenario file (run.json `patch`):',
    '',
    '```',
    patchLines(d.reproduce.patch),
    '```',
    '',
  ];
  return out.join('\n');
}
