import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PARAMS, loadScenario, loadWorldFile, parseScenario, runScenario, WorldFileError } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { bundledWorlds } from '../../src/sim/sim-world-file';

const dir = () => mkdtempSync(path.join(tmpdir(), 'evo-world-'));
const write = (d: string, name: string, v: unknown) => { const f = path.join(d, name); writeFileSync(f, JSON.stringify(v)); return f; };

async function perNiche(loaded: ReturnType<typeof loadScenario>, out: string) {
  const r = await runScenario(loaded, { patch: { variant: 'single-agent', 'stream.tasks': 36 }, outDir: out, report: false });
  return r.summary.perNiche;
}

describe('world files', () => {
  it('refuses an unknown parameter in one line naming the file and the field', () => {
    const d = dir();
    const f = write(d, 'w.json', { schemaVersion: 1, name: 'w', niches: { arithmetic: { bse: 1 } } });
    expect(() => loadWorldFile(f)).toThrow(WorldFileError);
    expect(() => loadWorldFile(f)).toThrow(/w\.json: niches\.arithmetic\.bse: unknown simulator parameter/);
    const g = write(d, 'g.json', { schemaVersion: 1, name: 'g', params: { base: 'high' } });
    expect(() => loadWorldFile(g)).toThrow(/g\.json: params\.base: /);
    // Every number of DEFAULT_SIM_PARAMS is a parameter a world may set.
    const all = write(d, 'all.json', { schemaVersion: 1, name: 'all', params: Object.fromEntries(Object.entries(DEFAULT_SIM_PARAMS).filter(([, v]) => typeof v === 'number')) });
    expect(loadWorldFile(all).name).toBe('all');
  });

  it('a scenario names its world by a relative path; the world is inlined when loaded, and a bad one is one line', () => {
    const d = dir();
    write(d, 'w.json', { schemaVersion: 1, name: 'easy', params: { base: 3 } });
    const base = loadScenario('hard').scenario;
    const loaded = parseScenario({ ...base, sim: { world: 'w.json' } }, path.join(d, 's.json'), d);
    expect((loaded.scenario.sim.world as { name: string; params: unknown }).params).toEqual({ base: 3 });
    // run.json carries the inlined world: parsing it again reads no file.
    expect(parseScenario(JSON.parse(JSON.stringify(loaded.scenario)), 'run.json', '/nonexistent').scenario.sim).toEqual(loaded.scenario.sim);
    expect(() => parseScenario({ ...base, sim: { world: 'missing.json' } }, path.join(d, 's.json'), d)).toThrow(/s\.json: sim: world .*missing\.json: world file not found/);
  });

  it('names only worlds as bundled worlds: a world\'s targets and registered prediction beside it are not', () => {
    const names = bundledWorlds();
    expect(names).toContain('paper-qwen3-8b');
    expect(names.filter((n) => n.endsWith('.targets') || n.endsWith('.prediction'))).toEqual([]);
    expect(() => loadWorldFile('no-such-world')).toThrow(/bundled worlds: paper-form, paper-qwen3-8b\)/);
  });

  it('moves the parameters it names, per niche only where it says, and no world leaves a run as it was', async () => {
    const d = dir();
    const hard = loadScenario('hard');
    const plain = await perNiche(hard, path.join(d, 'plain'));
    const again = await perNiche(withOverrides(hard, {}), path.join(d, 'again'));
    expect(again).toEqual(plain);
    const f = write(d, 'w.json', { schemaVersion: 1, name: 'arith', niches: { arithmetic: { base: 6 } } });
    const moved = await perNiche(withOverrides(hard, { sim: { world: f } }), path.join(d, 'moved'));
    expect(moved.arithmetic!).toBeGreaterThan(plain.arithmetic! + 0.3);
    for (const n of Object.keys(plain).filter((k) => k !== 'arithmetic')) expect(moved[n], n).toBe(plain[n]);
  });
});

describe('resume --world', () => {
  it('records the world for an ablation\'s unfinished runs in its plan, and a run\'s in run.json; a world that changes written events is refused', async () => {
    const { runAblation, resumeAblation, resumeRun } = await import('../../src/index');
    const { readFileSync, existsSync: exists } = await import('node:fs');
    const d = dir();
    const f = write(d, 'w.json', { schemaVersion: 1, name: 'later', params: { base: 0.5 } });
    const out = path.join(d, 'abl');
    await runAblation(loadScenario('hard'), { patch: { 'stream.tasks': 6, 'sweep.jobs': 1 }, variants: ['single-agent'], seeds: 1, outDir: out });
    await resumeAblation(out, { patch: { 'sim.world': f, 'sweep.jobs': 1 } });
    const plan = JSON.parse(readFileSync(path.join(out, 'ablation-plan.json'), 'utf8')) as { patch: Record<string, unknown> };
    expect(plan.patch['sim.world']).toBe(f);
    // A run stopped after its first tasks: resumed under another world, the re-made events differ.
    const stop = new AbortController();
    const runDir = path.join(d, 'run');
    await runScenario(loadScenario('hard'), { patch: { variant: 'single-agent', 'stream.tasks': 40 }, outDir: runDir, report: false, stop: stop.signal, onProgress: (p) => { if (p.done >= 3) stop.abort(); } });
    expect(exists(path.join(runDir, 'run.json'))).toBe(true);
    const strong = write(d, 'strong.json', { schemaVersion: 1, name: 'strong', params: { base: 6 } });
    await expect(resumeRun(runDir, { patch: { 'sim.world': strong }, report: false })).rejects.toThrow(/diverges from events\.jsonl/);
  });
});
