import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, runScenario } from '../../../../src/index';
import { withOverrides } from '../../../../src/engine/scenario/scenario';
import { calibrate, CONVERGENCE_RULE } from '../../../../src/engine/sweep/calibrate/calibrate';
import { loadTargets, nicheOutcomes, TargetsError } from '../../../../src/engine/sweep/calibrate/targets';
import { EvaluationJournal, JournalMismatchError } from '../../../../src/engine/sweep/calibrate/journal';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-calibrate-'));
const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });
const TASKS = 40;

/** A one-niche stream (arithmetic at its hardest), written beside the test's files. */
function oneNicheScenario(dir: string): string {
  const hard = loadScenario('hard').scenario;
  const file = path.join(dir, 'arith.json');
  writeFileSync(file, JSON.stringify({ ...hard, name: 'arith', stream: { ...hard.stream, tasks: TASKS, niches: [{ id: 'arithmetic', difficulty: [3] }] } }));
  return file;
}

/** Targets measured on the simulator itself at `base` = `truth`, over seed 1. */
async function targetsAt(dir: string, scenarioFile: string, truth: number): Promise<string> {
  const loaded = withOverrides(loadScenario(scenarioFile), { sim: { world: { schemaVersion: 1, name: 'truth', params: { base: truth } } } });
  const out = path.join(dir, 'truth-run');
  await runScenario(loaded, { patch: { variant: 'single-agent', seed: 1 }, outDir: out, report: false });
  const o = nicheOutcomes(out).get('arithmetic')!;
  const file = path.join(dir, 'targets.json');
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, targets: [{ variant: 'single-agent', niche: 'arithmetic', accuracy: o.sum / o.n, n: o.n, source: `sim at base ${truth}` }] }));
  return file;
}

describe('calibrate', () => {
  it('recovers a known parameter within the interval it reports', async () => {
    const dir = tmp();
    const scenarioFile = oneNicheScenario(dir);
    const truth = 2.8;
    const main = loadScenario(scenarioFile);
    const targets = loadTargets(await targetsAt(dir, scenarioFile, truth), main);
    const r = await calibrate({
      targets, parameters: [{ name: 'base', lo: -4, hi: 5, start: 1.2 }], seeds: [1], budget: 30,
      parameterPatch: (v) => ({ 'sim.world': { schemaVersion: 1, name: 'fit', params: { base: v[0]! } } }),
      journal: path.join(dir, 'journal.jsonl'), workDir: path.join(dir, 'runs'),
    });
    const p = r.parameters[0]!;
    expect(p.interval[0]).toBeLessThanOrEqual(truth);
    expect(p.interval[1]).toBeGreaterThanOrEqual(truth);
    expect(p.value).toBeGreaterThan(p.interval[0] - 1e-9);
    expect(p.value).toBeLessThan(p.interval[1] + 1e-9);
    // The search moved away from the default (1.2) towards the truth, and the target is met.
    expect(Math.abs(p.value - truth)).toBeLessThan(Math.abs(1.2 - truth));
    expect(r.targets[0]!.within).toBe(true);
    expect(r.evaluations.paid).toBe(r.evaluations.total);
    expect(r.evaluations.total).toBeLessThanOrEqual(30);
  });

  it('says a bad targets file in one line naming the file and the row', () => {
    const dir = tmp();
    const main = loadScenario(oneNicheScenario(dir));
    const write = (rows: unknown) => { const f = path.join(dir, `t${Math.random()}.json`); writeFileSync(f, JSON.stringify({ schemaVersion: 1, targets: rows })); return f; };
    const row = { variant: 'single-agent', niche: 'arithmetic', accuracy: 0.3, n: 50, source: 'x' };
    const cases: [string, RegExp][] = [
      [write([{ ...row, variant: 'no-such-preset' }]), /targets\[0\]\.variant: unknown variant "no-such-preset"/],
      [write([row, { ...row, niche: 'algebra' }]), /targets\[1\]\.niche: niche "algebra" is not in scenario arith's stream/],
      [write([{ ...row, n: undefined }]), /targets\[0\]: give n \(graded tasks\) or stderr/],
      [write([{ ...row, accuracy: 1.5 }]), /targets\[0\]\.accuracy: /],
      [write([{ ...row, extra: 1 }]), /targets\[0\]\.extra: unknown field/],
    ];
    for (const [file, message] of cases) {
      expect(() => loadTargets(file, main)).toThrow(TargetsError);
      expect(() => loadTargets(file, main)).toThrow(message);
    }
    // A journal from another calibration is refused, not replayed.
    const j = path.join(dir, 'j.jsonl');
    new EvaluationJournal(j, 'one');
    expect(() => new EvaluationJournal(j, 'other')).toThrow(JournalMismatchError);
    expect(new EvaluationJournal(j, 'one').size).toBe(0);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"schemaVersion": 1, "targets": [');
    expect(() => loadTargets(broken, main)).toThrow(/broken\.json: not valid JSON/);
  });

  it('the command: one line and exit 1 for a target no fitted parameter can move, or a malformed file', () => {
    const dir = tmp();
    const hard = loadScenario('hard').scenario;
    const file = path.join(dir, 'two.json');
    writeFileSync(file, JSON.stringify({ ...hard, name: 'two', stream: { ...hard.stream, tasks: 12, niches: [{ id: 'arithmetic' }, { id: 'algebra' }] } }));
    const targets = path.join(dir, 't.json');
    writeFileSync(targets, JSON.stringify({ schemaVersion: 1, targets: [{ variant: 'single-agent', niche: 'algebra', accuracy: 0.5, n: 40, source: 'x' }] }));
    const r = cli('calibrate', file, '--targets', targets, '--fit', 'base@arithmetic', '--out', path.join(dir, 'w.json'), '--quiet');
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/t\.json: targets\[0\]: no fitted parameter can move single-agent on algebra/);
    writeFileSync(targets, 'not json');
    const m = cli('calibrate', file, '--targets', targets, '--out', path.join(dir, 'w.json'), '--quiet');
    expect(m.status).toBe(1);
    expect(m.stderr.trim().split('\n')).toHaveLength(1);
    expect(m.stderr).toMatch(/t\.json: not valid JSON/);
    expect(existsSync(path.join(dir, 'w.json'))).toBe(false);
    // --world on run: a world with an unknown parameter is one line naming the file and the field.
    const bad = path.join(dir, 'bad-world.json');
    writeFileSync(bad, JSON.stringify({ schemaVersion: 1, name: 'bad', params: { bse: 1 } }));
    const w = cli('run', file, '--world', bad, '--out', path.join(dir, 'run'), '--quiet', '--no-report');
    expect(w.status).toBe(1);
    expect(w.stderr.trim().split('\n')).toHaveLength(1);
    expect(w.stderr).toMatch(/sim: world .*bad-world\.json: params\.bse: unknown simulator parameter/);
  });

  it('is deterministic, and a calibration killed midway (SIGTERM) resumes to the same world without paying twice', async () => {
    const dir = tmp();
    const scenarioFile = oneNicheScenario(dir);
    const targets = await targetsAt(dir, scenarioFile, 0.2);
    const args = (out: string) => ['calibrate', scenarioFile, '--targets', targets, '--fit', 'base', '--seeds', '1', '--budget', '16', '--tasks', '20', '--jobs', '1', '--name', 'w', '--quiet', '--out', out];
    const a = cli(...args(path.join(dir, 'a', 'w.json')));
    expect(a.status, a.stderr).toBe(0);
    const world = readFileSync(path.join(dir, 'a', 'w.json'), 'utf8');

    const outB = path.join(dir, 'b', 'w.json');
    const journal = path.join(dir, 'b', 'w.journal.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args(outB)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const evals = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"eval"')).length : 0);
    while (evals() < 3 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(4);
    expect(existsSync(outB)).toBe(false);
    const paidBefore = evals();
    expect(paidBefore).toBeGreaterThanOrEqual(3);

    const b = cli(...args(outB));
    expect(b.status, b.stderr).toBe(0);
    expect(readFileSync(outB, 'utf8')).toBe(world);
    const fit = JSON.parse(readFileSync(path.join(dir, 'b', 'w.fit.json'), 'utf8')) as { evaluations: { total: number; paid: number; fromJournal: number } };
    expect(fit.evaluations.fromJournal).toBe(paidBefore);
    expect(fit.evaluations.paid).toBe(fit.evaluations.total - paidBefore);
    // The convergence verdict, its bootstrap seeded from the calibration's seeds, is the same on the resumed calibration.
    const convergence = (d: string) => (JSON.parse(readFileSync(path.join(dir, d, 'w.fit.json'), 'utf8')) as { convergence: Record<string, unknown> }).convergence;
    expect(convergence('b')).toEqual(convergence('a'));
    expect(convergence('a')).toMatchObject({ rule: CONVERGENCE_RULE, gainThreshold: expect.any(Number), predictedDecrease: expect.any(Number) });
    // The world it wrote is a world every command reads.
    expect(() => parseScenario({ ...loadScenario(scenarioFile).scenario, sim: { world: outB } }, scenarioFile, dir)).not.toThrow();
  });
});
