import { describe, expect, it } from 'vitest';
import { BUILTIN_ASSEMBLERS, type AssemblerDescriptor } from '../../src/index';
import { knobViolation } from '../../src/core/knob';
import { agentView, mathTask, testRng } from '../fakes/agents';
import { scenarioDefaults } from '../fakes/scenario-defaults';

/**
 * Every assembler keeps its contract (team/assemblers/assembler.ts): exactly `teamSize` distinct
 * agents of the roster, never mutating it, the same team for the same seed, and knobs that name
 * real settings with their defaults in bounds. Exceptions, with why:
 */
const EXCEPTIONS: Readonly<Record<string, { readonly seedMatters: boolean; readonly why: string }>> = {
  'first-agent': { seedMatters: false, why: 'always the first agent of the roster' },
  'round-robin': { seedMatters: false, why: 'takes agents in turn by task index' },
  roles: { seedMatters: true, why: 'breaks competence ties at random' },
  'random-team': { seedMatters: true, why: 'draws the team at random' },
  'fixed-team': { seedMatters: false, why: 'always the first agents of the roster' },
};

const W = { wc: 1, ws: 0.5, wo: 0.5, wx: 1 };
const roster = () => ['a', 'b', 'c', 'd', 'e'].map((id, i) => agentView(id, { algebra: 0.5 + (i % 2) * 0.1, arithmetic: 0.4 }, { algebra: i }));

describe.each(BUILTIN_ASSEMBLERS.map((d) => [d.name, d] as const))('assembler contract: %s', (name, d: AssemblerDescriptor) => {
  const ctx = (seed: number, r = roster()) => ({ task: mathTask(), roster: r, rng: testRng(seed), synergy: () => 0.5, weights: W, c0: 0.5 });

  it('declares its exceptions here', () => {
    expect(EXCEPTIONS[name], `declare ${name}'s exceptions in this suite`).toBeDefined();
  });

  it(`returns ${'`teamSize`'} distinct agents of the roster, and never mutates it`, () => {
    const r = roster();
    const before = JSON.stringify(r.map((a) => [a.id, a.competence, a.exposure]));
    const team = d.assemble(ctx(1, r));
    const ids = team.members.map((m) => m.agent.id);
    expect(ids).toHaveLength(d.teamSize);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(r.map((a) => a.id)).toContain(id);
    expect(JSON.stringify(r.map((a) => [a.id, a.competence, a.exposure]))).toBe(before);
  });

  it('gives the same team for the same seed', () => {
    const ids = (seed: number) => d.assemble(ctx(seed)).members.map((m) => m.agent.id).join(',');
    expect(ids(3)).toBe(ids(3));
    if (!EXCEPTIONS[name]!.seedMatters) expect(new Set([1, 2, 3, 4, 5].map(ids)).size).toBe(1);
  });

  it('works with a roster exactly its team size', () => {
    const r = roster().slice(0, d.teamSize);
    expect(d.assemble(ctx(1, r)).members).toHaveLength(d.teamSize);
  });

  it('declares knobs that name real settings, with their defaults in bounds', () => {
    for (const k of d.knobs ?? []) {
      const v = k.path.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], scenarioDefaults());
      expect(v, k.path).toBeDefined();
      expect(knobViolation(k, v), k.path).toBeNull();
    }
  });
});
