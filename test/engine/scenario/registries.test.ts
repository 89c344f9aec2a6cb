import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../src/engine/scenario/presets';
import { LIFECYCLE_OPERATOR_LIST, LIFECYCLE_ORDER } from '../../../src/population/lifecycle';
import { DEFAULT_LIFECYCLE } from '../../../src/population/lifecycle/lifecycle-config';
import { BUILTIN_ASSEMBLERS } from '../../../src/team/assemblers';
import { BUILTIN_CHOOSERS } from '../../../src/team/choosers';
import { STRUCTURE_NAMES } from '../../../src/team/leadlearn/leadership-bank';
import { BUILTIN_STRUCTURES, choosableStructures } from '../../../src/team/structures';
import { BUILTIN_GENERATORS } from '../../../src/tasks/generators';
import { BUILTIN_GRADERS } from '../../../src/tasks/graders';
import { loadBuiltinNicheSpecs } from '../../../src/tasks/niche-registry';
import { STALENESS_POLICIES } from '../../../src/population/staleness';

const names = (list: readonly { name: string }[]) => list.map((d) => d.name);
const unique = (xs: readonly string[]) => new Set(xs).size === xs.length;

describe('registries derived from the descriptors', () => {
  it('have one descriptor per name', () => {
    for (const list of [names(BUILTIN_STRUCTURES), names(BUILTIN_ASSEMBLERS), names(BUILTIN_CHOOSERS), names(BUILTIN_GENERATORS), names(LIFECYCLE_OPERATOR_LIST), names(STALENESS_POLICIES)]) {
      expect(unique(list), list.join(',')).toBe(true);
    }
    expect(unique(BUILTIN_GRADERS.map((g) => g.domain))).toBe(true);
  });

  it('give every preset an assembler, a chooser and a structure that exist', () => {
    for (const p of Object.values(PRESETS)) {
      expect(names(BUILTIN_ASSEMBLERS), p.name).toContain(p.assembler);
      expect(names(BUILTIN_CHOOSERS), p.name).toContain(p.chooser);
      expect(names(BUILTIN_STRUCTURES), p.name).toContain(p.structure);
    }
    // One fixed-<structure> ablation per structure a leader can choose, and the bank's names are those structures.
    expect(Object.keys(PRESETS).filter((n) => n.startsWith('fixed-'))).toEqual(choosableStructures().map((d) => `fixed-${d.name}`));
    expect(STRUCTURE_NAMES).toEqual(['voting', 'debate', 'generator-critic', 'decompose']);
  });

  it('give every built-in niche its generator and its domain a grader', () => {
    for (const spec of loadBuiltinNicheSpecs().values()) {
      if (spec.generator) expect(names(BUILTIN_GENERATORS), spec.id).toContain(spec.generator);
      expect(BUILTIN_GRADERS.map((g) => g.domain), spec.id).toContain(spec.domain);
    }
  });

  it('order lifecycle operators by plan rank, and settings and counters by registry order', () => {
    expect(LIFECYCLE_ORDER).toEqual(['prune', 'merge', 'genesis', 'fork', 'specialize']);
    expect(Object.keys(DEFAULT_LIFECYCLE)).toEqual(['every', 'minAgents', 'maxAgents', 'specialist', ...names(LIFECYCLE_OPERATOR_LIST)]);
    for (const d of LIFECYCLE_OPERATOR_LIST) expect(DEFAULT_LIFECYCLE[d.name].enabled, d.name).toBe(true);
  });
});
