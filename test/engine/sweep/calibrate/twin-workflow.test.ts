import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../../../src/index';
import { withOverrides } from '../../../../src/engine/scenario/scenario';
import { calibrate } from '../../../../src/engine/sweep/calibrate/calibrate';
import { loadTargets, nicheOutcomes, targetsFromRuns } from '../../../../src/engine/sweep/calibrate/targets';
import { loadPrediction } from '../../../../src/engine/sweep/calibrate/scorecard';
import { RADIUS } from '../../../../src/engine/sweep/calibrate/surface';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-twin-'));
const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });

/** A one-niche stream (arithmetic at its hardest) of `tasks` tasks, written beside the test's files. */
function oneNiche(dir: string, tasks: number): string {
  const hard = loadScenario('hard').scenario;
  const file = path.join(dir, 'arith.json');
  writeFileSync(file, JSON.stringify({ ...hard, name: 'arith', stream: { ...hard.stream, tasks, niches: [{ id: 'arithmetic', difficulty: [3] }] } }));
  return file;
}

describe('the twin workflow without leaks', () => {
  it('--from-runs leaves the full system out and says so; a target at another stream length is refused in one line', () => {
    const dir = tmp();
    const scenario = oneNiche(dir, 12);
    const abl = path.join(dir, 'abl');
    const a = cli('ablate', scenario, '--variants', 'single-agent,evochamber', '--seeds', '1', '--out', abl, '--quiet', '--no-report', '--jobs', '1');
    expect(a.status, a.stderr).toBe(0);
    const built = targetsFromRuns([abl], { scenarioPrefix: 'w.scenario-', scenarioDir: dir });
    expect(new Set(built.targets.map((t) => t.variant))).toEqual(new Set(['single-agent']));
    expect(built.leftOut.get('evochamber')).toBe(1);
    expect(built.targets[0]!.tasks).toBe(12);
    expect(built.targets[0]!.loaded.scenario.model.backend).toBe('sim');
    // Named in --variants, the full system is taken.
    expect(targetsFromRuns([abl], { variants: ['evochamber'], scenarioPrefix: 'w.', scenarioDir: dir }).targets.every((t) => t.variant === 'evochamber')).toBe(true);

    const said = cli('calibrate', scenario, '--from-runs', abl, '--fit', 'base', '--budget', '3', '--out', path.join(dir, 'w.json'));
    expect(said.status).toBe(2);
    expect(said.stderr).toMatch(/--from-runs left out 1 runs of variants that are not baselines \(evochamber ×1\)/);

    const short = cli('calibrate', scenario, '--from-runs', abl, '--fit', 'base', '--tasks', '8', '--out', path.join(dir, 'w.json'));
    expect(short.status).toBe(1);
    const errors = short.stderr.trim().split('\n').filter((l) => l.startsWith('evochamber: error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/targets\[0\]\.tasks: single-agent on arithmetic was measured on 12-task streams, the evaluation runs 8/);
  });

  it('recovers two parameters from targets measured at disjoint seeds, within the intervals it reports', async () => {
    const dir = tmp();
    const file = oneNiche(dir, 40);
    const truth = { base: 1.8, coverage: 1.2 };
    const loaded = withOverrides(loadScenario(file), { sim: { world: { schemaVersion: 1, name: 'truth', params: truth } } });
    const rows = [];
    for (const variant of ['single-agent', 'per-agent-memory']) {
      const o = { n: 0, sum: 0 };
      for (const seed of [101, 102]) {
        const out = path.join(dir, `${variant}-${seed}`);
        await runScenario(loaded, { patch: { variant, seed }, outDir: out, report: false });
        const x = nicheOutcomes(out).get('arithmetic')!;
        o.n += x.n; o.sum += x.sum;
      }
      rows.push({ variant, niche: 'arithmetic', accuracy: o.sum / o.n, n: o.n, tasks: 40, source: 'sim at the truth, seeds 101-102' });
    }
    const targetsFile = path.join(dir, 't.json');
    writeFileSync(targetsFile, JSON.stringify({ schemaVersion: 1, targets: rows }));
    const r = await calibrate({
      targets: loadTargets(targetsFile, loadScenario(file)), seeds: [1, 2], budget: 28, jobs: 1,
      parameters: [{ name: 'base', lo: -4, hi: 5, start: 1.2 }, { name: 'coverage', lo: 0, hi: 6, start: 2.6 }],
      parameterPatch: (v) => ({ 'sim.world': { schemaVersion: 1, name: 'fit', params: { base: v[0]!, coverage: v[1]! } } }),
      journal: path.join(dir, 'j.jsonl'), workDir: path.join(dir, 'runs'),
    });
    const [base, coverage] = r.parameters;
    expect(base!.interval[0]).toBeLessThanOrEqual(truth.base);
    expect(base!.interval[1]).toBeGreaterThanOrEqual(truth.base);
    expect(coverage!.interval[0]).toBeLessThanOrEqual(truth.coverage);
    expect(coverage!.interval[1]).toBeGreaterThanOrEqual(truth.coverage);
    expect(Number.isFinite(base!.se)).toBe(true);
    expect(r.covariance).not.toBeNull();
    expect(r.dof).toBe(0);
    expect(r.heldOut).toHaveLength(2);
    // A refit inside the region the planes were fitted over is read off its plane (no runs paid); one outside is evaluated.
    const ranges = r.parameters.map((p) => p.hi - p.lo);
    for (const h of r.heldOut) {
      const inside = h.values.every((v, i) => Math.abs(v - r.values[i]!) <= RADIUS * ranges[i]! + 1e-9);
      expect(h.by).toBe(inside ? 'surface' : 'evaluation');
    }
    expect(r.evaluations.total).toBeLessThanOrEqual(28);
    // --profile-refit over the same journal: the same fit, only each profile point's re-fit paid, and no profile point higher.
    const again = await calibrate({
      targets: loadTargets(targetsFile, loadScenario(file)), seeds: [1, 2], budget: 28 + 2 * 4, jobs: 1, profileRefit: true,
      parameters: [{ name: 'base', lo: -4, hi: 5, start: 1.2 }, { name: 'coverage', lo: 0, hi: 6, start: 2.6 }],
      parameterPatch: (v) => ({ 'sim.world': { schemaVersion: 1, name: 'fit', params: { base: v[0]!, coverage: v[1]! } } }),
      journal: path.join(dir, 'j.jsonl'), workDir: path.join(dir, 'runs2'),
    });
    expect(again.values).toEqual(r.values);
    expect(again.evaluations.paid).toBeGreaterThan(0);
    expect(again.evaluations.paid).toBeLessThanOrEqual(2 * 4);
    again.parameters.forEach((p, i) => {
      expect(p.profile.map((x) => x.value)).toEqual(r.parameters[i]!.profile.map((x) => x.value));
      p.profile.forEach((x, n) => expect(x.chi2).toBeLessThanOrEqual(r.parameters[i]!.profile[n]!.chi2));
    });
  });

  it('predict is deterministic, hashed, and a changed prediction file is refused', () => {
    const dir = tmp();
    const file = oneNiche(dir, 24);
    const world = path.join(dir, 'w.json');
    writeFileSync(world, JSON.stringify({
      schemaVersion: 1, name: 'w', params: { base: 1.5, coverage: 2 },
      fit: { parameters: [{ name: 'base', value: 1.5, lo: -4, hi: 5 }, { name: 'coverage', value: 2, lo: 0, hi: 6 }], covariance: [[1, -0.1], [-0.1, 0.25]] },
    }));
    const args = (out: string) => ['predict', world, file, '--variants', 'single-agent,per-agent-memory', '--reference', 'per-agent-memory', '--seeds', '2', '--draws', '2', '--runs', '3', '--jobs', '1', '--out', out];
    const a = cli(...args(path.join(dir, 'a.json')));
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/drops from per-agent-memory, largest first: single-agent/);
    const b = cli(...args(path.join(dir, 'b.json')));
    expect(b.status, b.stderr).toBe(0);
    const text = readFileSync(path.join(dir, 'a.json'), 'utf8');
    expect(readFileSync(path.join(dir, 'b.json'), 'utf8')).toBe(text);
    const p = loadPrediction(path.join(dir, 'a.json'));
    expect(p.parameterUncertainty).toBe(true);
    const sa = p.streams[0]!.variants['single-agent']!.accuracy;
    expect(sa.sdParameters).toBeGreaterThan(0);
    expect(sa.lo).toBeLessThanOrEqual(sa.mean);
    expect(sa.hi).toBeGreaterThan(sa.lo);
    const edited = path.join(dir, 'edited.json');
    writeFileSync(edited, text.replace(`"mean": ${sa.mean}`, `"mean": ${sa.mean + 0.1}`));
    expect(() => loadPrediction(edited)).toThrow(/does not match its hash/);

    // ablate --score: the scorecard for the seeds the ablation ran, written beside it; a stream of another length is refused in one line.
    const abl = path.join(dir, 'abl');
    const scored = cli('ablate', file, '--world', world, '--variants', 'single-agent,per-agent-memory', '--seeds', '1', '--score', path.join(dir, 'a.json'), '--out', abl, '--quiet', '--no-report', '--jobs', '1');
    expect(scored.status, scored.stderr).toBe(0);
    expect(scored.stdout).toMatch(/scorecard against prediction [0-9a-f]{16} on arith \(1 seeds/);
    const card = JSON.parse(readFileSync(path.join(abl, 'scorecard.json'), 'utf8')) as { calibration: { total: number; inside: number }; dropRank: { predicted: string[] } };
    expect(card.calibration.total).toBeGreaterThanOrEqual(5);
    expect(card.dropRank.predicted).toEqual(['single-agent']);
    const other = cli('ablate', file, '--world', world, '--variants', 'single-agent', '--seeds', '1', '--tasks', '10', '--score', path.join(dir, 'a.json'), '--out', path.join(dir, 'abl2'), '--quiet', '--no-report');
    expect(other.status).toBe(1);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(/streams\.arith\.tasks: predicted for 24-task streams, the ablation runs 10/);
  });
});
