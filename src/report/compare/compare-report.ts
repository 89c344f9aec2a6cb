import { writeFileSync } from 'node:fs';
import { checkOutputDir, claimOutputDir } from '../../store/output-dir';
import path from 'node:path';
import { formatPairedTable } from '../../core/stats/paired-comparison';
import { ablationSections } from '../ablation-report';
import { STRUCTURE_COLORS, withUnknowns } from '../charts/palette';
import { fmt3, vl, type Section } from '../charts/section';
import { renderPage, type RenderedPage } from '../html/page';
import { markdownTable } from '../summary-md';
import type { CompareData } from './compare-data';

/** Section ids of a comparison page, in order. */
export const COMPARE_SECTIONS = ['inputs', 'variants', 'paired', 'per-niche', 'stream', 'specialists', 'population', 'structures', 'cost', 'seeds', 'runs'] as const;

function inputsSection(d: CompareData): Section {
  return {
    id: 'inputs', heading: 'What is compared',
    intro: 'Each run is one entry; each variant of an ablation is one, named <ablation>/<variant>. The first entry is the reference of the task-by-task comparison unless --reference names another.',
    charts: [], notes: d.differences.length ? [] : ['Same scenario, same stream settings and the same seeds: every entry ran the same tasks.'],
    tables: [{ caption: 'Inputs', headers: ['input', 'kind', 'scenario', 'seeds', 'entries'], rows: d.inputs.map((i) => [i.path, i.kind, i.scenario ?? '–', i.seeds.join(', '), i.entries.join(', ')]) }],
  };
}

function structuresSection(d: CompareData): Section {
  const s: Section = { id: 'structures', heading: 'Team structures per entry', intro: 'Times each team structure was chosen per run (over every niche), mean over the entry\'s runs.', charts: [], tables: [], notes: [] };
  const names = [...new Set(d.structures.flatMap((x) => Object.keys(x.counts)))];
  if (names.length === 0) { s.notes.push('No run chose a team structure (or none finished with a summary).'); return s; }
  const scale = withUnknowns(STRUCTURE_COLORS, names);
  s.charts.push({
    id: 'compare-structures', title: 'Share of tasks per team structure', caption: 'A shift of colour between entries is a change in how the teams were assembled.',
    spec: vl({
      data: { values: d.structures.flatMap((x) => Object.entries(x.counts).map(([structure, n]) => ({ entry: x.entry, structure, n }))) },
      width: 520, height: { step: 22 }, mark: { type: 'bar' },
      encoding: {
        y: { field: 'entry', type: 'nominal', sort: d.structures.map((x) => x.entry), title: null },
        x: { field: 'n', type: 'quantitative', stack: 'normalize', title: 'share of tasks', axis: { format: '.0%' } },
        color: { field: 'structure', type: 'nominal', scale: { domain: scale.domain, range: scale.range }, title: 'structure' },
        tooltip: [{ field: 'entry' }, { field: 'structure' }, { field: 'n', title: 'per run', format: '.1f' }],
      },
    }),
  });
  s.tables.push({ caption: 'Team structures chosen per run', headers: ['entry', ...names], rows: d.structures.map((x) => [x.entry, ...names.map((n) => (x.counts[n] ?? 0).toFixed(1))]) });
  return s;
}

/** The sections of a comparison: the ablation report's, over the entries, with the inputs first and the structures added. */
export function compareSections(d: CompareData): Section[] {
  const ablation = ablationSections({ ...d, kind: 'ablation' }).filter((s) => s.id !== 'reproduce');
  const at = ablation.findIndex((s) => s.id === 'population') + 1;
  return [inputsSection(d), ...ablation.slice(0, at), structuresSection(d), ...ablation.slice(at)];
}

/** Render the comparison page. */
export function renderComparePage(d: CompareData): Promise<RenderedPage> {
  return renderPage({
    title: `EvoChamber comparison — ${d.variants.length} entries from ${d.inputs.length} inputs`,
    subtitle: [`${d.scenario ?? ''} · seeds ${d.seedList?.join(', ') ?? '–'}`],
    warnings: d.differences, sections: compareSections(d),
    footer: `Generated ${d.generatedAt} by evochamber compare; data.json beside this file holds everything drawn here.`,
  });
}

/** `summary.md` of a comparison. */
export function compareSummaryMarkdown(d: CompareData): string {
  return [
    `# EvoChamber comparison: ${d.variants.length} entries from ${d.inputs.length} inputs`, '',
    ...d.differences.map((x) => `> ⚠ ${x}`), ...(d.differences.length ? [''] : []),
    markdownTable(['entry', 'runs', 'accuracy', ...d.niches, 'tokens/run'], d.variants.map((v) => [
      v.name, v.runs.length, v.runs.length > 1 ? `${fmt3(v.accuracy.mean)} ± ${fmt3(v.accuracy.sd)}` : fmt3(v.accuracy.mean),
      ...d.niches.map((n) => fmt3(v.perNiche.find((p) => p.niche === n)?.mean)), v.tokens ? `${(v.tokens.mean / 1000).toFixed(1)}k` : '–',
    ])), '',
    ...(d.paired ? ['```', ...formatPairedTable(d.paired), '```', ''] : []),
  ].join('\n');
}

/** The files a comparison writes. */
export const COMPARE_FILES = ['index.html', 'summary.md', 'data.json'] as const;

/** Refuse, in one line and before any work, an `--out` evochamber may not write a comparison into (store/output-dir.ts). */
export function checkCompareDir(outDir: string): void {
  checkOutputDir(outDir, { flag: '--out', names: COMPARE_FILES });
}

/** Write index.html, summary.md and data.json of a comparison into `outDir` (the output-directory rule's way: only its own files replaced). */
export async function writeCompare(d: CompareData, outDir: string): Promise<{ indexPath: string; summaryPath: string; dataPath: string; chartWarnings: string[] }> {
  const page = await renderComparePage(d);
  claimOutputDir(outDir, { flag: '--out', names: COMPARE_FILES });
  const indexPath = path.join(outDir, 'index.html');
  const summaryPath = path.join(outDir, 'summary.md');
  const dataPath = path.join(outDir, 'data.json');
  writeFileSync(indexPath, page.html);
  writeFileSync(summaryPath, compareSummaryMarkdown(d));
  writeFileSync(dataPath, `${JSON.stringify(d, null, 1)}\n`);
  return { indexPath, summaryPath, dataPath, chartWarnings: page.chartWarnings };
}
