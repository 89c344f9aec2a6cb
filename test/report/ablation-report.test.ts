import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { ABLATION_SECTIONS, ablationReportDataSchema, writeReport } from '../../src/report';
import { charts, expectWellFormedReport, sectionIds } from './html-checks';
import { paretoFront } from '../../src/report/variant-comparison';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-ablation-'));

/** An `ablate` output directory as the ablate command writes it: ablation.json plus one run dir per variant and seed. */
function writeAblationFixture(dir: string): string {
  const stat = (mean: number, sd: number) => ({ mean, sd });
  const variant = (acc: number, spec: number, v: string) => ({
    accuracy: stat(acc, 0.02),
    perNiche: { arithmetic: stat(acc + 0.05, 0.03), algebra: stat(acc, 0.01), 'people-qa': stat(acc - 0.05, 0.04) },
    stableSpecialists: stat(spec, 0.5),
    runs: [1, 2, 3].map((s) => path.join(dir, `${v}-s${s}`)),
  });
  const variants = { evochamber: variant(0.8, 3, 'evochamber'), 'no-codream': variant(0.74, 2, 'no-codream'), 'single-agent': variant(0.6, 0, 'single-agent') };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'ablation.json'), JSON.stringify({ variants, seeds: 3, scenario: 'quickstart', seedList: [1, 2, 3], outDir: dir }, null, 2));
  return dir;
}

describe('the ablation report', () => {
  it('draws variants side by side with their spread over seeds', async () => {
    const dir = writeAblationFixture(path.join(tmp(), 'ablate-quickstart'));
    const r = await writeReport(dir, { outDir: path.join(dir, 'report'), clock: new ManualClock() });
    expect(r.kind).toBe('ablation');
    expect(r.chartWarnings).toEqual([]);
    const html = readFileSync(r.indexPath, 'utf8');
    expect(sectionIds(html)).toEqual([...ABLATION_SECTIONS]);
    const found = expectWellFormedReport(html);
    expect(found.map((c) => c.id)).toEqual(['ablation-accuracy', 'ablation-niches', 'ablation-specialists']);
    // 3 variants × 3 niches bars, each with its error rule.
    const niches = charts(html).find((c) => c.id === 'ablation-niches')!;
    expect(niches.svg.match(/aria-roledescription="bar"/g)).toHaveLength(9);
    expect(niches.svg.match(/aria-roledescription="rule mark"/g)).toHaveLength(9);
    expect(html).toContain('0.850 ± 0.030');
    const data = ablationReportDataSchema.parse(JSON.parse(readFileSync(r.dataPath, 'utf8')));
    expect(data.variants.map((v) => v.name)).toEqual(['evochamber', 'no-codream', 'single-agent']);
    expect(readFileSync(r.summaryPath, 'utf8')).toMatch(/\| no-codream +\| 0\.740 ± 0\.020/);
  });

  it('marks the Pareto front: the variants no other beats on both cost and accuracy', () => {
    const pts = [{ cost: 100, value: 0.4 }, { cost: 300, value: 0.8 }, { cost: 400, value: 0.7 }, { cost: 300, value: 0.6 }, { cost: 500, value: 0.9 }];
    expect(paretoFront(pts)).toEqual([true, true, false, false, true]);
  });

  it('names the runs whose logs are not here instead of drawing the stream', async () => {
    const dir = writeAblationFixture(path.join(tmp(), 'ablate-elsewhere'));
    const r = await writeReport(dir, { outDir: path.join(dir, 'report'), clock: new ManualClock() });
    const data = ablationReportDataSchema.parse(JSON.parse(readFileSync(r.dataPath, 'utf8')));
    expect(data.comparison.unreadable).toHaveLength(9);
    expect(data.comparison.rolling).toEqual([]);
    expect(readFileSync(r.indexPath, 'utf8')).toContain('No run\'s event log could be read (9 unreadable)');
  });

  it('says so instead of drawing zero-height bars when no variant has a stable specialist', async () => {
    const dir = writeAblationFixture(path.join(tmp(), 'ablate-flat'));
    const file = path.join(dir, 'ablation.json');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    for (const v of Object.values(json.variants) as { stableSpecialists: unknown }[]) v.stableSpecialists = { mean: 0, sd: 0 };
    writeFileSync(file, JSON.stringify(json));
    const r = await writeReport(dir, { outDir: path.join(dir, 'report') });
    const html = readFileSync(r.indexPath, 'utf8');
    expect(expectWellFormedReport(html).map((c) => c.id)).toEqual(['ablation-accuracy', 'ablation-niches']);
    expect(html).toContain('No variant had a stable specialist in any seed.');
  });

  it('reproduces the ablation of a version-1 plan file with its run flags, budget, backend and prices as a patch; one seed prints no spread', async () => {
    const dir = path.join(tmp(), 'ablate-one-seed');
    mkdirSync(dir, { recursive: true });
    const one = (mean: number) => ({ mean, sd: 0 });
    const perSeed = [{ seed: 4, accuracy: 0.5, perNiche: { arithmetic: 0.5 }, stableSpecialists: 1, tokens: 1000, completionTokens: 400, usd: 0.0002 }];
    const v = { accuracy: one(0.5), perNiche: { arithmetic: one(0.5) }, stableSpecialists: one(1), tokens: one(1000), completionTokens: one(400), usd: one(0.0002), perSeed, runs: [path.join(dir, 'evochamber-s4')] };
    writeFileSync(path.join(dir, 'ablation.json'), JSON.stringify({ variants: { evochamber: v }, seeds: 1, scenario: 'hard', seedList: [4], outDir: dir }));
    // A plan file as version 1 wrote it: the scenario (with --price and the backend flags applied) and the run flags beside it.
    const config = { name: 'hard', seed: 4, stream: { tasks: 600 }, engine: { inFlight: 1, staleness: { policy: 'full', tau: 8 }, evolveTiming: 'lag' },
      model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' }, prices: { sim: { input: 0.05, output: 0.2 } } };
    writeFileSync(path.join(dir, 'ablation-plan.json'), JSON.stringify({ schemaVersion: 1, config, scenarioDir: dir, variants: ['evochamber'], seeds: 1, tasks: 50,
      inFlight: 4, staleness: { policy: 'guarded' }, evolveTiming: 'when-ready', budget: { tokens: 90000 } }));
    const r = await writeReport(dir, { outDir: path.join(dir, 'report'), clock: new ManualClock() });
    const html = readFileSync(r.indexPath, 'utf8');
    expect(html).not.toContain('± 0.000');
    const data = ablationReportDataSchema.parse(JSON.parse(readFileSync(r.dataPath, 'utf8')));
    const flags = '--variants evochamber --seeds 1 --set stream.tasks=50 --set engine.inFlight=4 --set engine.staleness.policy=guarded --set engine.evolveTiming=when-ready'
      + ` --set 'model={"backend":"sim","latency":"qwen3-8b-h100-vllm"}' --set 'prices={"sim":{"input":0.05,"output":0.2}}' --set 'sweepBudget={"tokens":90000}'`;
    expect(data.reproduce!.command).toContain(`scenario.json ${flags}`);
    expect(data.reproduce!.fromOriginal).toBe(`npx evochamber ablate scenarios/hard.json ${flags}`);
    expect(data.reproduce!.patch).toEqual({
      'stream.tasks': 50, 'engine.inFlight': 4, 'engine.staleness.policy': 'guarded', 'engine.evolveTiming': 'when-ready',
      model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' }, prices: { sim: { input: 0.05, output: 0.2 } }, sweepBudget: { tokens: 90000 },
    });
    expect(readFileSync(r.summaryPath, 'utf8')).toContain(flags);
  });

  it('names the file and field when ablation.json is malformed', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'ablation.json'), JSON.stringify({ variants: { a: { accuracy: { mean: 1 } } }, seeds: 1 }));
    await expect(writeReport(dir, { outDir: path.join(dir, 'report') })).rejects.toThrow(/ablation\.json: variants\.a\.accuracy\.sd/);
  });
});
