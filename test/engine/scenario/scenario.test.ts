import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyScenarioPatch, loadScenario, parseScenario, ScenarioError } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { scenarioSchema } from '../../../src/engine/scenario/scenario-schema';

const base = { name: 't', stream: { tasks: 10, niches: [{ id: 'algebra' }] } };

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return (e as Error).message;
  }
  throw new Error('expected a ScenarioError');
}

describe('scenario validation', () => {
  it('fills defaults for a minimal scenario', () => {
    const { scenario } = parseScenario(base, 'min.json');
    expect(scenario.variant).toBe('evochamber');
    expect(scenario.engine.inFlight).toBe(1);
    expect(scenario.memory).toEqual({ eta: 0.1, c0: 0.5, k: 3, kMeta: 2 });
  });

  it('takes engine.inFlight "auto" with engine.auto settings, and names the field of a bad one', () => {
    const { scenario } = parseScenario({ ...base, engine: { inFlight: 'auto', auto: { max: 16, periodSeconds: 60 } } }, 'auto.json');
    expect(scenario.engine.inFlight).toBe('auto');
    expect(scenario.engine.auto).toMatchObject({ initial: 4, min: 1, max: 16, periodSeconds: 60 });
    expect(errorOf(() => parseScenario({ ...base, engine: { inFlight: 'fast' } }, 'a.json'))).toBe('a.json: engine.inFlight: expected a whole number 1–1024, or "auto"');
    expect(errorOf(() => parseScenario({ ...base, engine: { inFlight: 'auto', auto: { max: 2 } } }, 'a.json'))).toBe('a.json: engine.auto.initial: initial (4) must lie within min..max (1..2)');
    expect(errorOf(() => parseScenario({ ...base, engine: { inFlight: 'auto', auto: { perod: 9 } } }, 'a.json'))).toMatch(/^a\.json: engine\.auto\.perod: unknown field \(fields here: .*periodSeconds/);
  });

  it('names the file and the path of an unknown field', () => {
    const msg = errorOf(() => parseScenario({ ...base, stream: { ...base.stream, niches: [{ id: 'algebra', wieght: 2 }] } }, 'bad.json'));
    expect(msg).toBe('bad.json: stream.niches[0].wieght: unknown field (did you mean stream.niches[0].weight?)');
  });

  it('names a misspelt required field, not the field it leaves missing, with the nearest known one', () => {
    const { tasks: _t, ...stream } = base.stream as Record<string, unknown>;
    expect(errorOf(() => parseScenario({ ...base, stream: { ...stream, taks: 5 } }, 'typo.json'))).toBe('typo.json: stream.taks: unknown field (did you mean stream.tasks?)');
    expect(errorOf(() => parseScenario({ ...base, egnine: {} }, 'typo.json'))).toBe('typo.json: egnine: unknown field (did you mean engine?)');
  });

  it('names the field of a wrong type', () => {
    expect(errorOf(() => parseScenario({ ...base, seed: 'one' }, 'bad.json'))).toMatch(/^bad\.json: seed: .*number/);
  });

  it('rejects an unknown niche, listing the built-in ones', () => {
    const msg = errorOf(() => parseScenario({ ...base, stream: { tasks: 5, niches: [{ id: 'algebra' }, { id: 'astrology' }] } }, 's.json'));
    expect(msg).toMatch(/^s\.json: stream\.niches\[1\]\.id: unknown niche "astrology" \(built-in: .*algebra/);
  });

  it('rejects an unknown variant', () => {
    expect(errorOf(() => parseScenario({ ...base, variant: 'magic' }, 's.json'))).toMatch(/^s\.json: variant: unknown variant "magic"/);
  });

  it('rejects a missing dataset path, resolved against the scenario folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-scn-'));
    const file = path.join(dir, 'gsm.json');
    writeFileSync(file, JSON.stringify({ name: 'g', stream: { tasks: 3, niches: [{ id: 'gsm', dataset: { format: 'gsm8k', path: 'data/nope.jsonl' } }] } }));
    const msg = errorOf(() => loadScenario(file));
    expect(msg).toContain(`${file}: stream.niches[0].dataset.path: dataset file not found: ${path.join(dir, 'data/nope.jsonl')}`);
  });

  it('reports malformed JSON with the file name', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-scn-'));
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{ "name": ');
    expect(errorOf(() => loadScenario(file))).toMatch(/broken\.json: not valid JSON/);
  });

  it('applies overrides by deep merge and re-validates them', () => {
    const loaded = parseScenario(base, 'b.json');
    const o = withOverrides(loaded, { memory: { k: 5 }, engine: { inFlight: 4 } });
    expect(o.scenario.memory.k).toBe(5);
    expect(o.scenario.memory.eta).toBe(0.1);
    expect(o.scenario.engine.inFlight).toBe(4);
    expect(errorOf(() => withOverrides(loaded, { memory: { k: -1 } }))).toMatch(/memory\.k/);
  });

  it('engine.staleness defaults to full with tau 8, and names the field for a bad policy or tau', () => {
    expect(parseScenario(base, 'min.json').scenario.engine.staleness).toEqual({ policy: 'full', tau: 8 });
    expect(errorOf(() => parseScenario({ ...base, engine: { staleness: { policy: 'lazy' } } }, 's.json')))
      .toBe('s.json: engine.staleness.policy: unknown staleness policy "lazy" (policies: full, guarded, reflective)');
    expect(errorOf(() => parseScenario({ ...base, engine: { staleness: { tau: -1 } } }, 's.json'))).toMatch(/^s\.json: engine\.staleness\.tau: /);
    expect(errorOf(() => parseScenario({ ...base, engine: { staleness: { tau: 2.5 } } }, 's.json'))).toMatch(/^s\.json: engine\.staleness\.tau: /);
  });

  it('a patch sets the staleness policy and tau separately, keeping inFlight', () => {
    const loaded = parseScenario({ ...base, engine: { inFlight: 4, staleness: { policy: 'guarded', tau: 3 } } }, 'b.json');
    expect(applyScenarioPatch(loaded, { 'engine.staleness.tau': 5 }).scenario.engine).toMatchObject({ inFlight: 4, staleness: { policy: 'guarded', tau: 5 }, evolveTiming: 'lag' });
    expect(applyScenarioPatch(loaded, { 'engine.inFlight': 2, 'engine.staleness.policy': 'reflective' }).scenario.engine).toMatchObject({ inFlight: 2, staleness: { policy: 'reflective', tau: 3 }, evolveTiming: 'lag' });
  });

  it('a patch is validated by the scenario schema, the error naming its path', () => {
    const loaded = parseScenario(base, 'b.json');
    expect(errorOf(() => applyScenarioPatch(loaded, { 'engine.inFlight': 0 }))).toMatch(/^b\.json \(with overrides\): engine\.inFlight: /);
    // The message lists the fields the section has (checked against the schema, so a new knob changes no test).
    const fields = Object.keys(scenarioSchema.shape.engine.unwrap().shape);
    expect(errorOf(() => applyScenarioPatch(loaded, { 'engine.nope': 1 } as Record<string, unknown>))).toBe(`b.json (with overrides): engine.nope: unknown field (fields here: ${fields.join(', ')})`);
    // An entry replaces the value at its path; later entries win; an empty patch changes nothing.
    expect(applyScenarioPatch(loaded, { 'stream.tasks': 3, seed: 9 }).scenario).toMatchObject({ seed: 9, stream: { tasks: 3, niches: [{ id: 'algebra' }] } });
    expect(applyScenarioPatch(loaded, {})).toBe(loaded);
  });
});
