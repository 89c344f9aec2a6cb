import { describe, expect, it } from 'vitest';
import { fieldsUnder, mergePatches, parsePatchEntry, patchArgs, patched, patchEntryText, scenarioPatch, valueAt } from '../../src/core/scenario-patch';

describe('scenario patch', () => {
  it('leaves unset entries out, and a later patch wins for the same path', () => {
    expect(scenarioPatch({ seed: 2, 'stream.tasks': undefined })).toEqual({ seed: 2 });
    const merged = mergePatches({ seed: 1, 'engine.inFlight': 2 }, undefined, { seed: 3 });
    expect(merged).toEqual({ 'engine.inFlight': 2, seed: 3 });
    expect(Object.keys(merged)).toEqual(['engine.inFlight', 'seed']);
    expect(fieldsUnder('budget', { tokens: 5, usd: undefined })).toEqual({ 'budget.tokens': 5 });
  });

  it('sets each entry at its path in order, copying what it passes through and keeping the rest', () => {
    const base = { engine: { inFlight: 1, staleness: { policy: 'full', tau: 8 } }, model: { backend: 'sim' } };
    const out = patched(base, { 'engine.staleness.tau': 3, model: { backend: 'openai' }, 'model.retries': 2 });
    expect(out).toEqual({ engine: { inFlight: 1, staleness: { policy: 'full', tau: 3 } }, model: { backend: 'openai', retries: 2 } });
    expect(base.engine.staleness.tau).toBe(8);
    expect(valueAt(out, 'engine.staleness.policy')).toBe('full');
    expect(valueAt(out, 'engine.nope.deeper')).toBeUndefined();
  });

  it('writes entries as text that reads back as the same value', () => {
    for (const value of [4, 'auto', 'lag', '7', 'true', true, null, { tokens: 5 }, ['a', 'b'], 'two words', '{"x":1}']) {
      const [path, back] = parsePatchEntry(patchEntryText('a.b', value));
      expect(path).toBe('a.b');
      expect(back).toEqual(value);
    }
    expect(patchEntryText('engine.evolveTiming', 'lag')).toBe('engine.evolveTiming=lag');
    expect(patchEntryText('name', '7')).toBe('name="7"');
    expect(patchArgs({ seed: 1, 'engine.inFlight': 'auto' })).toEqual(['--set', 'seed=1', '--set', 'engine.inFlight=auto']);
  });

  it('refuses an entry without a path', () => {
    expect(() => parsePatchEntry('=3')).toThrow(/is not PATH=VALUE/);
    expect(() => parsePatchEntry('seed')).toThrow(/is not PATH=VALUE/);
    expect(() => parsePatchEntry('a..b=1')).toThrow(/is not PATH=VALUE/);
  });
});
