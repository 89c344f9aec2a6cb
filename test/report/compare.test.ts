// `evochamber compare`: runs made separately, side by side, with the paired statistics where tasks pair.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { loadScenario, runScenario } from '../../src/index';
import { buildCompareData, compareDataSchema } from '../../src/report/compare/compare-data';
import { COMPARE_SECTIONS } from '../../src/report/compare/compare-report';
import { sectionIds } from './html-checks';

let root: string;
const dirs: Record<string, string> = {};
const tokens: Record<string, number> = {};

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'evo-compare-'));
  const scenario = loadScenario(path.resolve('scenarios/quickstart.json'));
  for (const [name, patch] of Object.entries({ full: { seed: 1 }, 'no-codream': { seed: 1, variant: 'no-codream' }, 'full-s2': { seed: 2 } })) {
    const { runDir, summary } = await runScenario(scenario, { patch: { ...patch, 'stream.tasks': 30 }, outDir: path.join(root, name), report: false });
    dirs[name] = runDir;
    tokens[name] = summary.tokens!.total.promptTokens + summary.tokens!.total.completionTokens;
  }
}, 60_000);

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'compare', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('compare', () => {
  it('pairs two runs of one seed task by task, and says nothing differs', async () => {
    const d = await buildCompareData([dirs.full!, dirs['no-codream']!], new ManualClock());
    expect(d.differences).toEqual([]);
    expect(d.variants.map((v) => v.name)).toEqual(['full', 'no-codream']);
    expect(d.paired!.reference).toBe('full');
    expect(d.paired!.rows).toEqual([expect.objectContaining({ variant: 'no-codream', test: 'paired', tasks: 30, seeds: [1] })]);
    const r = d.paired!.rows[0]!;
    expect(r.difference!).toBeCloseTo(d.variants[1]!.accuracy.mean - d.variants[0]!.accuracy.mean, 3);
    expect(r.lo!).toBeLessThanOrEqual(r.difference!);
    expect(r.hi!).toBeGreaterThanOrEqual(r.difference!);
    // Cost is each run's summary's.
    expect(d.variants.map((v) => v.tokens!.mean)).toEqual([tokens.full, tokens['no-codream']]);
    expect(d.structures[0]!.counts).not.toEqual({});
  });

  it('says when the seeds differ, and labels the comparison unpaired', async () => {
    const d = await buildCompareData([dirs.full!, dirs['full-s2']!], new ManualClock());
    expect(d.differences).toEqual([expect.stringContaining('The seeds differ (full: 1; full-s2: 2)')]);
    expect(d.paired!.rows[0]).toMatchObject({ variant: 'full-s2', test: 'unpaired', tasks: 30, referenceTasks: 30 });
  });

  it('writes HTML, Markdown and JSON from the command line, with --reference', () => {
    const out = path.join(root, 'cmp');
    const r = cli(dirs.full!, dirs['no-codream']!, dirs['full-s2']!, '--out', out, '--reference', 'no-codream');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('against no-codream: per-task reward difference');
    expect(r.stderr).toContain('compare: The seeds differ');
    const data = compareDataSchema.parse(JSON.parse(readFileSync(path.join(out, 'data.json'), 'utf8')));
    expect(data.paired!.rows.map((x) => [x.variant, x.test])).toEqual([['full', 'paired'], ['full-s2', 'unpaired']]);
    expect(sectionIds(readFileSync(path.join(out, 'index.html'), 'utf8'))).toEqual([...COMPARE_SECTIONS]);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/\| full-s2 +\|/);
  });

  it('refuses an input that is not a run or an ablation in one line, and an unknown reference', () => {
    const r = cli(dirs.full!, root);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`evochamber: error: ${root}: neither a run (no run.json) nor an ablation (no ablation.json)`]);
    const ref = cli(dirs.full!, dirs['no-codream']!, '--reference', 'nope', '--out', path.join(root, 'x'));
    expect(ref.status).toBe(1);
    expect(ref.stderr).toContain('--reference nope is not one of the entries (full, no-codream)');
    expect(cli(dirs.full!).status).toBe(2);
  });
});
