import { describe, expect, it } from 'vitest';
import { BUILTIN_ASSEMBLERS, type AssemblerDescriptor, type AssemblyContext } from '../../src/index';
import { ASSEMBLER_KINDS } from '../../src/team/assemblers';
import { knobViolation } from '../../src/core/knob';
import { agentView, mathTask, teamOf, testRng } from '../fakes/agents';
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
// Competence ties (a, c, e and b, d) so that an assembler that breaks ties at random has something to break.
const roster = () => ['a', 'b', 'c', 'd', 'e'].map((id, i) => agentView(id, { algebra: 0.5 + (i % 2) * 0.1, arithmetic: 0.4 }, { algebra: i }));
const ctx = (seed: number, r = roster()) => ({ task: mathTask(), roster: r, rng: testRng(seed), synergy: () => 0.5, weights: W, c0: 0.5 });
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/**
 * The seed contract: the team depends on the task, the roster and the seed only. The same seed
 * gives the same team again after other seeds have been used (no hidden state between calls); an
 * assembler that says the seed matters gives more than one team over twelve seeds, and one that
 * says it does not gives exactly one.
 */
function checkSeed(d: AssemblerDescriptor, seedMatters: boolean | undefined): void {
  const ids = (seed: number) => d.assemble(ctx(seed)).members.map((m) => m.agent.id).join(',');
  const first = SEEDS.map(ids);
  const again = [...SEEDS].reverse().map(ids).reverse();
  expect(again).toEqual(first);
  if (seedMatters === undefined) return;
  expect(new Set(first).size > 1, `the seed ${seedMatters ? 'should' : 'should not'} change the team: ${[...new Set(first)].join(' | ')}`).toBe(seedMatters);
}

// Every built-in assembler declares its exceptions here; one registered later gets the contract below without them (no edit here).
it.each(BUILTIN_ASSEMBLERS.map((d) => d.name))('assembler %s declares its exceptions here', (name) => {
  expect(EXCEPTIONS[name], `declare ${name}'s exceptions in this suite`).toBeDefined();
});

describe.each(ASSEMBLER_KINDS.list().map((d) => [d.name, d] as const))('assembler contract: %s', (name, d: AssemblerDescriptor) => {

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

  it('gives the same team for the same seed, and uses the seed only if it says so', () => {
    checkSeed(d, EXCEPTIONS[name]?.seedMatters);
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

describe('the assembler contract fails a wrong assembler', () => {
  const firstThree = (r: AssemblyContext['roster'], from: number) => teamOf(r[from % r.length]!, r[(from + 1) % r.length]!, r[(from + 2) % r.length]!);

  it('one that keeps state between calls, so the same seed does not give the same team', () => {
    let calls = 0;
    const stateful: AssemblerDescriptor = { name: 'stateful', teamSize: 3, assemble: (c) => firstThree(c.roster, calls++) };
    expect(() => checkSeed(stateful, false)).toThrow();
  });

  it('one that says it breaks ties at random but never draws', () => {
    const deaf: AssemblerDescriptor = { name: 'deaf', teamSize: 3, assemble: (c) => firstThree(c.roster, 0) };
    expect(() => checkSeed(deaf, true)).toThrow();
    checkSeed(deaf, false);
  });
});
