import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main';
import { ManualClock } from '../../src/core/clock';
import { loadScenario, runScenario, type RunSummary } from '../../src/index';
import { reportDataSchema, RUN_SECTIONS, writeReport } from '../../src/report';
import { charts, expectWellFormedReport, sectionHtml, sectionIds } from './html-checks';
import { writeFixtureRun } from './fixture-run';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-report-'));
const quickstart = () => loadScenario(path.resolve('scenarios/quickstart.json'));

describe('the report written at the end of a simulated run', () => {
  let summary: RunSummary;
  let reportDir: string;
  let html: string;
  beforeAll(async () => {
    const root = tmp();
    reportDir = path.join(root, 'report');
    ({ summary } = await runScenario(quickstart(), { patch: { 'stream.tasks': 40 }, outDir: path.join(root, 'run'), report: { outDir: reportDir } }));
    html = readFileSync(path.join(reportDir, 'index.html'), 'utf8');
  });

  it('is named in the summary and in run.json', () => {
    expect(summary.reportPath).toBe(path.join(reportDir, 'index.html'));
    const run = JSON.parse(readFileSync(path.join(summary.runDir, 'run.json'), 'utf8'));
    expect(run.summary.reportPath).toBe(summary.reportPath);
  });

  it('is one self-contained page with every section and only non-empty charts', () => {
    expect(sectionIds(html)).toEqual([...RUN_SECTIONS]);
    const found = expectWellFormedReport(html);
    expect(found.map((c) => c.id)).toEqual(expect.arrayContaining(['competence-final', 'competence-windows', 'specialists', 'structures', 'accuracy-rolling', 'cost-stages']));
    // The run's own patch (run.json), as --set entries; the saved scenario needs none.
    expect(sectionHtml(html, 'reproduce')).toContain('scenarios/quickstart.json --set stream.tasks=40');
    expect(sectionHtml(html, 'reproduce')).toContain('stream.tasks = 40');
  });

  it('writes data.json valid against its schema, and summary.md with the headline tables', () => {
    const data = reportDataSchema.parse(JSON.parse(readFileSync(path.join(reportDir, 'data.json'), 'utf8')));
    expect(data.accuracy.overall).toBeCloseTo(summary.accuracy, 3);
    expect(data.run.tasksDone).toBe(40);
    const md = readFileSync(path.join(reportDir, 'summary.md'), 'utf8');
    for (const h of ['## Accuracy per niche', '## Specialists', '## Lineage', '## CoDream', '## Structures per niche', '## Tokens per stage', '## Reproduce']) expect(md).toContain(h);
    expect(md).toContain(`**Accuracy ${summary.accuracy.toFixed(3)}**`);
    // The scenario as run is saved beside the report, loadable as a scenario.
    expect(loadScenario(path.join(reportDir, 'scenario.json')).scenario.stream.tasks).toBe(40);
  });

  it('is skipped when asked', async () => {
    const { summary: s } = await runScenario(quickstart(), { patch: { variant: 'individual', 'stream.tasks': 5 }, outDir: path.join(tmp(), 'run'), report: false });
    expect(s.reportPath).toBeUndefined();
  });
});

describe('the report of a run with population events', () => {
  let html: string;
  let dir: string;
  beforeAll(async () => {
    dir = writeFixtureRun(path.join(tmp(), 'fixture'));
    const r = await writeReport(dir, { outDir: path.join(dir, 'report'), clock: new ManualClock() });
    expect(r.chartWarnings).toEqual([]);
    html = readFileSync(r.indexPath, 'utf8');
  });

  it('draws every chart family, each non-empty', () => {
    const found = expectWellFormedReport(html);
    expect(found.map((c) => c.id)).toEqual([
      'competence-final', 'competence-windows', 'specialists', 'lineage-tree', 'codream-matrix', 'codream-niches',
      'structures', 'accuracy-rolling', 'cost-stages',
    ]);
    expect(sectionHtml(html, 'accuracy')).toContain('block 1');
  });

  it('gives every recorded reason and the decisions table', () => {
    const lineage = sectionHtml(html, 'lineage');
    for (const reason of ['fork of the algebra anchor', 'merged into agent-06', 'anchors algebra', 'people-qa lacks an anchor']) expect(lineage).toContain(reason);
    expect(lineage).toContain('<caption>Lifecycle decisions</caption>');
    // Reasons are hover text on the tree's marks, not only in the tables.
    expect(charts(html).find((c) => c.id === 'lineage-tree')!.svg).toMatch(/<title>[^<]*fork of the algebra anchor/);
  });

  it('colours each agent the same in the key and in every chart', () => {
    const key = /<span class="swatch" style="background:(#[0-9a-f]{6})"><\/span>agent-05/.exec(html);
    expect(key).not.toBeNull();
    const colour = key![1]!;
    for (const id of ['specialists', 'lineage-tree']) {
      const svg = charts(html).find((c) => c.id === id)!.svg;
      const marks = [...svg.matchAll(/aria-label="[^"]*agent-05[^"]*"[^>]*?(?:fill|stroke)="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
      expect(marks.length, id).toBeGreaterThan(0);
      expect(new Set(marks), id).toContain(colour);
    }
  });

  it('is what `evochamber report` writes, with --out', async () => {
    const out = path.join(tmp(), 'cli-out');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['report', dir, '--out', out])).toBe(0);
      expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(`report: ${path.join(out, 'index.html')}`);
    } finally {
      write.mockRestore();
    }
    expect(existsSync(path.join(out, 'data.json'))).toBe(true);
  });

  it('fails clearly on a directory that is not a run', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['report', tmp()])).toBe(1);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toMatch(/no run\.json/);
      expect(await main(['report'])).toBe(2);
    } finally {
      err.mockRestore();
    }
  });
});

describe('a run without CoDream or lifecycle', () => {
  it('says so plainly instead of drawing empty charts', async () => {
    const root = tmp();
    const { summary } = await runScenario(quickstart(), { patch: { variant: 'individual', 'stream.tasks': 12 }, outDir: path.join(root, 'run'), report: { outDir: path.join(root, 'report') } });
    const html = readFileSync(summary.reportPath!, 'utf8');
    expectWellFormedReport(html);
    expect(sectionHtml(html, 'codream')).toContain('No CoDream in this run');
    expect(sectionHtml(html, 'codream')).not.toContain('<figure');
    expect(sectionHtml(html, 'lineage')).toContain('The roster did not change');
    expect(sectionHtml(html, 'lineage')).not.toContain('<figure');
  });
});

describe('the self-containment check', () => {
  it('catches every kind of outside reference', async () => {
    const { externalReferences } = await import('./html-checks');
    expect(externalReferences('<svg xmlns="http://www.w3.org/2000/svg"><a href="#x">x</a></svg>')).toEqual([]);
    for (const bad of [
      '<script src="app.js"></script>', '<img src="https://e.com/a.png">', '<a href="http://e.com">', '<style>@import "x.css";</style>',
      '<div style="background:url(https://e.com/a.png)">', '<link rel="stylesheet" href="a.css">', '<use xlink:href="//e.com/s.svg#a"/>',
    ]) expect(externalReferences(bad), bad).not.toEqual([]);
  });
});
