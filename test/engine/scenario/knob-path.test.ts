import { describe, expect, it } from 'vitest';
import type { Knob } from '../../../src/core/knob';
import { procedureKnobs } from '../../../src/engine/meta/procedure';
import { isKnobPath, scenarioKnobs, type KnobPath } from '../../../src/engine/scenario/knob-path';
import { PRESETS } from '../../../src/engine/scenario/presets';
import { forkConfigSchema } from '../../../src/population/lifecycle/fork';
import { configKnobs } from '../../../src/population/lifecycle/operator';
import { structureRegistry } from '../../../src/team/structures';

describe('knob paths are the scenario schema\'s', () => {
  it('every knob every preset offers a meta-editor names a setting of the scenario', () => {
    let seen = 0;
    for (const preset of Object.values(PRESETS)) {
      for (const k of procedureKnobs(preset, structureRegistry())) {
        expect(isKnobPath(k.path), `${preset.name}: ${k.path}`).toBe(true);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(100);
  });

  it('tells settings from sections and from names the schema lacks', () => {
    expect(['engine.inFlight', 'team.weights.wc', 'population.lifecycle.fork.margin', 'memory.reflectionNote', 'team.offered'].filter((p) => !isKnobPath(p))).toEqual([]);
    expect(['engine', 'team.weights', 'engine.inflight', 'population.lifecycle.fork.margn', ''].filter((p) => isKnobPath(p))).toEqual([]);
  });

  it('refuses a declared knob whose path names no setting, naming it', () => {
    const typo = { kind: 'int', path: 'memory.kmeta', min: 0, max: 6, description: 'meta-insights retrieved' } as const;
    expect(() => scenarioKnobs([typo])).toThrow(/knob "memory\.kmeta" \(meta-insights retrieved\) names no setting of the scenario schema/);
  });

  it('a path the schema lacks fails to compile where the config\'s type is known', () => {
    const ok: Knob<KnobPath> = { kind: 'int', path: 'engine.inFlight', min: 1, max: 64, description: 'tasks in flight' };
    // @ts-expect-error -- the schema spells it inFlight
    const typo: Knob<KnobPath> = { kind: 'int', path: 'engine.inflight', min: 1, max: 64, description: 'tasks in flight' };
    // @ts-expect-error -- fork's trigger config has `enabled`, not `enable`
    const forkTypo = configKnobs(forkConfigSchema, [{ kind: 'bool', path: 'enable', description: 'fork runs' }]);
    expect([ok, typo, ...forkTypo].map((k) => isKnobPath(k.path))).toEqual([true, false, false]);
  });
});
