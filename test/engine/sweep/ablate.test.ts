import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAblationTable, runAblation, stat } from '../../../src/engine/sweep/ablate';
import { loadScenario } from '../../../src/index';

describe('ablate', () => {
  it('computes mean and sample sd', () => {
    expect(stat([0.5, 0.7])).toEqual({ mean: 0.6, sd: 0.1414 });
    expect(stat([0.3])).toEqual({ mean: 0.3, sd: 0 });
  });

  it('runs every variant over the same seeds and writes ablation.json with the runs', async () => {
    const outDir = mkdtempSync(path.join(tmpdir(), 'evo-abl-'));
    const r = await runAblation(loadScenario(path.resolve('scenarios/quickstart.json')), { patch: { 'stream.tasks': 24 }, variants: ['single-agent', 'evochamber'], seeds: 2, outDir });
    expect(Object.keys(r.variants)).toEqual(['single-agent', 'evochamber']);
    expect(r.seedList).toEqual([1, 2]);
    for (const v of Object.values(r.variants)) {
      expect(v.runs).toHaveLength(2);
      for (const run of v.runs) expect(existsSync(path.join(run, 'run.json'))).toBe(true);
      expect(Object.keys(v.perNiche).length).toBeGreaterThan(0);
      // The aggregate is the mean ± sd of the accuracies the runs wrote to disk, seed by seed.
      const accuracies = v.runs.map((run) => JSON.parse(readFileSync(path.join(run, 'run.json'), 'utf8')).summary.accuracy as number);
      expect(v.accuracy).toEqual(stat(accuracies));
    }
    // Same seeds, different variants: the memoryless baseline and the full system score differently.
    expect(r.variants['single-agent']!.accuracy.mean).not.toBe(r.variants.evochamber!.accuracy.mean);
    expect(JSON.parse(readFileSync(path.join(outDir, 'ablation.json'), 'utf8')).seeds).toBe(2);
    const table = formatAblationTable(r);
    expect(table).toMatch(/single-agent\s+\d\.\d{3}±\d\.\d{3}/);
    expect(table).toMatch(/evochamber/);
    // One seed has no spread: its values stand alone, never "± 0.000".
    const one = formatAblationTable({ ...r, seeds: 1, seedList: [1], variants: { 'single-agent': { ...r.variants['single-agent']!, perSeed: r.variants['single-agent']!.perSeed.slice(0, 1) } } });
    expect(one).not.toMatch(/±/);
    expect(one).toMatch(/single-agent\s+\d\.\d{3}\s/);
  });

  it('prints the documented JSON line last and rejects unknown variants before running anything', () => {
    const outDir = mkdtempSync(path.join(tmpdir(), 'evo-abl-'));
    const cli = (...a: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ablate', 'scenarios/quickstart.json', ...a], { encoding: 'utf8', timeout: 120_000 });
    const ok = cli('--variants', 'single-agent,individual', '--seeds', '2', '--tasks', '12', '--quiet', '--json', '--out', outDir);
    expect(ok.status).toBe(0);
    const last = JSON.parse(ok.stdout.trim().split('\n').pop()!);
    // `paired`: each variant against the reference (docs/reports.md, "Paired comparisons").
    expect(Object.keys(last)).toEqual(['variants', 'seeds', 'paired', 'reportPath']);
    // The sweep ends with its report: written without another command, its path on stdout.
    expect(ok.stdout).toContain(`report: ${last.reportPath}`);
    expect(readFileSync(last.reportPath, 'utf8')).toContain('Accuracy over the stream');
    // The table never cuts a niche name.
    expect(ok.stdout).toMatch(/ list-functions /);
    expect(ok.stdout).toMatch(/ string-functions /);
    expect(last.seeds).toBe(2);
    expect(Object.keys(last.variants.individual)).toEqual(['accuracy', 'perNiche', 'stableSpecialists', 'tokens', 'completionTokens', 'perSeed', 'runs']);
    // Per-seed values, as a paper table's appendix needs them: each seed's own accuracy and tokens.
    const perSeed = last.variants.individual.perSeed as Array<{ seed: number; accuracy: number; tokens: number }>;
    expect(perSeed.map((x) => x.seed)).toEqual([1, 2]);
    expect(stat(perSeed.map((x) => x.accuracy))).toEqual(last.variants.individual.accuracy);
    expect(stat(perSeed.map((x) => x.tokens))).toEqual(last.variants.individual.tokens);
    // resume of an ablation ends with the report too (here one killed after its runs, before ablation.json).
    const again = path.join(mkdtempSync(path.join(tmpdir(), 'evo-abl-')), 'abl');
    expect(cli('--variants', 'single-agent,individual', '--seeds', '1', '--tasks', '6', '--quiet', '--no-report', '--out', again).status).toBe(0);
    expect(existsSync(path.join(again, 'report'))).toBe(false);
    rmSync(path.join(again, 'ablation.json'));
    const resumed = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'resume', again, '--quiet'], { encoding: 'utf8', timeout: 120_000 });
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toContain(`report: ${path.join(again, 'report', 'index.html')}`);
    expect(readFileSync(path.join(again, 'report', 'index.html'), 'utf8')).toContain('Accuracy over the stream');
    const bad = cli('--variants', 'evochamber,telepathy', '--out', outDir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown variant "telepathy"/);
  });
});
