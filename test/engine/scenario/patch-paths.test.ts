import { describe, expect, it } from 'vitest';
import { fieldsUnder, patchWithout, scenarioPatch, type PatchPath } from '../../../src/core/scenario-patch';
import '../../../src/engine/scenario/knob-path';

/**
 * Patches written in code name the scenario's paths, checked by the compiler (`npx tsc --noEmit`
 * fails when an `@ts-expect-error` below stops being an error, i.e. when the check is lost).
 */
describe('patch paths', () => {
  it('take the scenario\'s settings and sections, and a plug-in\'s free sim.* paths', () => {
    const paths: PatchPath[] = ['engine', 'engine.inFlight', 'sweepBudget', 'sweep.parallel', 'sim.world', 'stream.tasks', 'population.lifecycle.every'];
    expect(patchWithout({ 'engine.inFlight': 4, 'stream.tasks': 9, sweepBudget: { tokens: 1 } }, ['engine', 'sweepBudget'])).toEqual({ 'stream.tasks': 9 });
    expect(scenarioPatch({ seed: 2, 'stream.tasks': undefined })).toEqual({ seed: 2 });
    expect(fieldsUnder('engine.staleness', { tau: 3 })).toEqual({ 'engine.staleness.tau': 3 });
    expect(paths).toHaveLength(7);
  });

  it('refuse a misspelt path at compile time', () => {
    // At run time a patch is data (the schema refuses a wrong path where the run is made); the compiler refuses it first.
    // @ts-expect-error -- no section "sweepBugdet"
    expect(patchWithout({ sweepBudget: 1 }, ['sweepBugdet'])).toEqual({ sweepBudget: 1 });
    // @ts-expect-error -- no setting "stream.taks"
    expect(scenarioPatch({ 'stream.taks': 3 })).toEqual({ 'stream.taks': 3 });
    // @ts-expect-error -- no section "engin"
    expect(fieldsUnder('engin', { x: 1 })).toEqual({ 'engin.x': 1 });
  });
});
