import { describe, expect, it } from 'vitest';
import { SynergyTable, synergyOf } from '../../src/population/synergy';
import { roleAssembler } from '../../src/team/assemblers/role-assembler';
import type { AssemblyWeights } from '../../src/team/assemblers/assembler';
import { competenceMatrix, competenceVector, matrixOverlap, rosterNiches, styleOverlap, vectorOverlap } from '../../src/team/style-overlap';
import { agentView, mathTask, testRng } from '../fakes/agents';

const W: AssemblyWeights = { wc: 1, ws: 0.5, wo: 0.5, wx: 1 };
const task = mathTask();
const noSynergy = (_i: string, _j: string) => 0.5;
const assemble = (roster: ReturnType<typeof agentView>[], weights = W, seed = 1, synergy = noSynergy) =>
  roleAssembler({ task, roster, rng: testRng(seed), synergy, weights, c0: 0.5 });

describe('team assembly', () => {
  it('the anchor is the argmax of competence on the niche', () => {
    const roster = [agentView('a', { algebra: 0.4 }), agentView('b', { algebra: 0.9 }), agentView('c', { algebra: 0.6 }), agentView('d')];
    expect(assemble(roster).members[0]!.agent.id).toBe('b');
  });

  it('breaks anchor ties uniformly at random from the seeded rng', () => {
    const roster = ['a', 'b', 'c', 'd'].map((id) => agentView(id, { algebra: 0.7 }));
    const anchors = new Map<string, number>();
    for (let seed = 0; seed < 400; seed++) {
      const id = assemble(roster, W, seed).members[0]!.agent.id;
      anchors.set(id, (anchors.get(id) ?? 0) + 1);
    }
    expect([...anchors.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
    for (const n of anchors.values()) expect(n).toBeGreaterThan(60);
    expect(assemble(roster, W, 7).members[0]!.agent.id).toBe(assemble(roster, W, 7).members[0]!.agent.id);
  });

  it('the complement trades competence against style overlap as the weights say', () => {
    // Anchor strong in algebra only. "twin" has the anchor's profile and slightly more algebra
    // competence; "diverse" is a bit weaker in algebra but strong elsewhere (low overlap).
    const anchor = agentView('anchor', { algebra: 0.95, 'people-qa': 0.1, 'list-functions': 0.1 });
    const twin = agentView('twin', { algebra: 0.8, 'people-qa': 0.1, 'list-functions': 0.1 });
    const diverse = agentView('diverse', { algebra: 0.7, 'people-qa': 0.9, 'list-functions': 0.9 });
    const third = agentView('third', { algebra: 0.1, 'people-qa': 0.1, 'list-functions': 0.1 });
    const roster = [anchor, twin, diverse, third];
    const niches = ['algebra', 'list-functions', 'people-qa'];
    expect(styleOverlap(anchor, twin, niches, 0.5)).toBeGreaterThan(styleOverlap(anchor, diverse, niches, 0.5));
    expect(assemble(roster, { ...W, wo: 0 }).members[1]!.agent.id).toBe('twin');
    expect(assemble(roster, { ...W, wo: 2 }).members[1]!.agent.id).toBe('diverse');
  });

  it('the complement prefers the anchor\'s proven partner when synergy is weighted', () => {
    const roster = [agentView('a', { algebra: 0.9 }), agentView('b', { algebra: 0.6 }), agentView('c', { algebra: 0.6 }), agentView('d', { algebra: 0.6 })];
    const synergy = (i: string, j: string) => ([i, j].sort().join() === 'a,d' ? 0.9 : 0.2);
    expect(assemble(roster, W, 1, synergy).members[1]!.agent.id).toBe('d');
  });

  it('the scout prefers under-exposed agents', () => {
    const roster = [
      agentView('lead', { algebra: 0.9 }, { algebra: 30 }), agentView('mate', { algebra: 0.8 }, { algebra: 30 }),
      agentView('veteran', { algebra: 0.5 }, { algebra: 40 }), agentView('rookie', { algebra: 0.5 }, { algebra: 0 }),
    ];
    const team = assemble(roster);
    expect(team.members.map((m) => m.role)).toEqual(['anchor', 'complement', 'scout']);
    expect(team.members[2]!.agent.id).toBe('rookie');
    expect(team.scores!.rookie).toBeCloseTo(1 - 0.5 * 1, 1);
  });

  it('rejects a pool smaller than the team', () => {
    expect(() => assemble([agentView('a'), agentView('b')])).toThrow(/3 active agents/);
  });
});

describe('style overlap and synergy', () => {
  it('overlap is the cosine of competence vectors, unseen niches at c0', () => {
    const a = agentView('a', { x: 1, y: 0 });
    const b = agentView('b', { x: 0, y: 1 });
    expect(styleOverlap(a, b, ['x', 'y'], 0.5)).toBeCloseTo(0);
    expect(styleOverlap(a, a, ['x', 'y'], 0.5)).toBeCloseTo(1);
    expect(styleOverlap(agentView('c', { x: 1 }), agentView('d', { y: 1 }), ['x', 'y'], 0.5)).toBeCloseTo(0.8);
  });

  it('the roster\'s niches are the sorted union of its agents\' niches, as each agent\'s competence changes', () => {
    const a = agentView('a', { y: 0.1, x: 0.2 });
    const b = agentView('b', { x: 0.3, y: 0.4 });
    expect(rosterNiches([a, b])).toEqual(['x', 'y']);
    const c = agentView('c', { z: 1 });
    expect(rosterNiches([a, b, c])).toEqual(['x', 'y', 'z']);
    // A new record (an observation) with a niche more: read anew, not from the old record's list.
    const a2 = agentView('a', { ...a.competence, w: 0.5 });
    expect(rosterNiches([a2, b])).toEqual(['w', 'x', 'y']);
    expect(rosterNiches([a, b])).toEqual(['x', 'y']);
    expect(rosterNiches([])).toEqual([]);
  });

  it('overlap from competence vectors is styleOverlap bit for bit, either way round', () => {
    const rng = testRng(3);
    const niches = ['a', 'b', 'c', 'd', 'e', 'f'];
    const views = Array.from({ length: 30 }, (_, i) => agentView(`x${i}`, Object.fromEntries(niches.filter(() => rng.next() < 0.8).map((n) => [n, rng.next()]))));
    views.push(agentView('zero', Object.fromEntries(niches.map((n) => [n, 0]))));
    const vectors = views.map((v) => competenceVector(v, niches, 0.5));
    // The roles assembler's one-array form of the same vectors.
    const matrix = competenceMatrix(views, niches, 0.5);
    for (let i = 0; i < views.length; i++) {
      for (let j = 0; j < views.length; j++) {
        const want = styleOverlap(views[i]!, views[j]!, niches, 0.5);
        expect(Object.is(vectorOverlap(vectors[i]!, vectors[j]!), want)).toBe(true);
        expect(Object.is(matrixOverlap(matrix, i, j), want)).toBe(true);
      }
    }
  });

  it('synergy moves every pair of the team by EWMA of the team reward, symmetrically', () => {
    const table = new SynergyTable();
    table.apply(['a', 'b', 'c'], 'algebra', 1, 0.2, 0.5, 1);
    expect(synergyOf(table, 'b', 'a', 'algebra', 0.5)).toBeCloseTo(0.6);
    expect(synergyOf(table, 'a', 'c', 'algebra', 0.5)).toBeCloseTo(0.6);
    const changes = table.apply(['a', 'b'], 'algebra', 0, 0.2, 0.5, 2);
    expect(synergyOf(table, 'a', 'b', 'algebra', 0.5)).toBeCloseTo(0.48);
    expect(synergyOf(table, 'a', 'b', 'people-qa', 0.5)).toBe(0.5);
    expect(changes).toEqual([{ a: 'a', b: 'b', niche: 'algebra', value: expect.closeTo(0.48, 10) }]);
  });

  it('a reader as of a pool version sees the table as it was then, whatever was committed since', () => {
    const table = new SynergyTable();
    table.apply(['a', 'b'], 'algebra', 1, 0.2, 0.5, 3);
    table.apply(['a', 'b'], 'algebra', 0, 0.2, 0.5, 5);
    expect(table.get('a', 'b', 'algebra', 0.5, 2)).toBe(0.5);
    expect(table.get('a', 'b', 'algebra', 0.5, 3)).toBeCloseTo(0.6);
    expect(table.get('a', 'b', 'algebra', 0.5, 4)).toBeCloseTo(0.6);
    expect(table.get('b', 'a', 'algebra', 0.5, 5)).toBeCloseTo(0.48);
    expect(() => table.apply(['a', 'b'], 'algebra', 1, 0.2, 0.5, 4)).toThrow(RangeError);
  });
});
