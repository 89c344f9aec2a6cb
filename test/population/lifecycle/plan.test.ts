import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../../src/core/rng';
import type { LifecycleConfigInput } from '../../../src/population/lifecycle/lifecycle-config';
import {
  rosterFloor, type LifecycleContext, type LifecycleOperator, 
} from '../../../src/population/lifecycle/operator';
import type { LifecycleDecision, LifecycleOperatorName } from '../../../src/population/lifecycle';
import {
  decisionAgents, LIFECYCLE_OPERATORS, LIFECYCLE_ORDER, planLifecycle, retiredBy, rosterDelta, type PlanOptions,
} from '../../../src/population/lifecycle/plan';
import type { AgentView } from '../../../src/individual/agent-view';
import { agent, ctxOf, rewards } from './fixtures';

const fixed = (decisions: Partial<Record<LifecycleOperatorName, LifecycleDecision[]>>, calls: string[] = []): PlanOptions => ({
  decide: Object.fromEntries(LIFECYCLE_ORDER.map((name) => [name, (() => (calls.push(name), decisions[name] ?? [])) as LifecycleOperator])),
});

const five = () => ['a', 'b', 'c', 'd', 'e'].map((id) => agent(id, { x: 0.5 }));

describe('planLifecycle', () => {
  it('runs the operators in the documented order', () => {
    const calls: string[] = [];
    const plan = planLifecycle(ctxOf(five()), {}, fixed({
      specialize: [{ operator: 'specialize', agent: 'a', niche: 'x', reason: 's' }],
      genesis: [{ operator: 'genesis', parent: 'b', niche: 'x', reason: 'g' }],
      prune: [{ operator: 'prune', agent: 'e', reason: 'p' }],
    }, calls));
    expect(calls).toEqual(['prune', 'merge', 'genesis', 'fork', 'specialize']);
    expect(plan.applied.map((d) => d.operator)).toEqual(['prune', 'genesis', 'specialize']);
    expect(plan.skipped).toEqual([]);
  });

  it('lets an agent take part in one roster change only, and never names a retired agent', () => {
    const plan = planLifecycle(ctxOf(five(), { bounds: { minAgents: 2, teamSize: 1 } }), {}, fixed({
      prune: [{ operator: 'prune', agent: 'a', reason: 'p' }],
      merge: [{ operator: 'merge', keep: 'b', retire: 'a', reason: 'm1' }, { operator: 'merge', keep: 'c', retire: 'd', reason: 'm2' }],
      genesis: [{ operator: 'genesis', parent: 'c', niche: 'x', reason: 'g' }],
      fork: [{ operator: 'fork', parent: 'b', niche: 'x', reason: 'f' }],
      specialize: [{ operator: 'specialize', agent: 'd', niche: 'x', reason: 's1' }, { operator: 'specialize', agent: 'c', niche: 'x', reason: 's2' }],
    }));
    expect(plan.applied.map((d) => d.reason)).toEqual(['p', 'm2', 'f', 's2']);
    expect(plan.skipped.map((s) => [s.decision.reason, s.because])).toEqual([
      ['m1', 'a retires earlier in this window'],
      ['g', 'c already takes part in a roster change this window'],
      ['s1', 'd retires earlier in this window'],
    ]);
  });

  it('drops decisions that would leave the bounds, with the numbers', () => {
    const plan = planLifecycle(ctxOf(five(), { bounds: { minAgents: 4, maxAgents: 5, teamSize: 2 } }), {}, fixed({
      prune: [{ operator: 'prune', agent: 'a', reason: 'p1' }, { operator: 'prune', agent: 'b', reason: 'p2' }],
      genesis: [{ operator: 'genesis', parent: 'c', niche: 'x', reason: 'g' }],
      fork: [{ operator: 'fork', parent: 'd', niche: 'x', reason: 'f' }],
    }));
    expect(plan.applied.map((d) => d.reason)).toEqual(['p1', 'g']);
    expect(plan.skipped.map((s) => s.because)).toEqual([
      'roster would shrink to 3, below 4 (minAgents 4, team size 2 + 1)',
      'roster would grow to 6, above maxAgents 5',
    ]);
  });

  it('honours both the preset switches and the config flags', () => {
    const ops = fixed({ prune: [{ operator: 'prune', agent: 'a', reason: 'p' }], specialize: [{ operator: 'specialize', agent: 'b', niche: 'x', reason: 's' }] });
    expect(planLifecycle(ctxOf(five()), { prune: false }, ops).applied.map((d) => d.operator)).toEqual(['specialize']);
    expect(planLifecycle(ctxOf(five(), { config: { specialize: { enabled: false } } }), {}, ops).applied.map((d) => d.operator)).toEqual(['prune']);
  });

  it('uses room freed by a prune for a genesis in the same window', () => {
    const r = [
      agent('a', { x: 0.6, y: 0.5 }, { rewards: rewards(20, 0.8) }),
      agent('b', { x: 0.6, y: 0.5 }, { rewards: rewards(20, 0.8) }),
      agent('c', { x: 0.6, y: 0.5 }, { rewards: rewards(20, 0.8) }),
      agent('d', { x: 0.6, y: 0.5 }, { rewards: rewards(20, 0.8) }),
      agent('e', { x: 0.3, y: 0.5 }, { rewards: rewards(20, 0.1) }),
    ];
    const ctx = ctxOf(r, { recentNiches: { y: 30 }, bounds: { maxAgents: 5 }, config: { merge: { enabled: false } } });
    const plan = planLifecycle(ctx);
    expect(plan.applied).toMatchObject([{ operator: 'prune', agent: 'e' }, { operator: 'genesis', parent: 'a', niche: 'y' }]);
    expect(planLifecycle(ctx, { prune: false }).applied).toEqual([]);
  });
});

/** A random roster inside its bounds, with clustered values so that ties and near-twins occur. */
function randomContext(seed: number): LifecycleContext {
  const rng: Rng = createRng(`plan-property/${seed}`);
  const minAgents = 1 + rng.int(5);
  const teamSize = 1 + rng.int(3);
  const floor = Math.max(minAgents, teamSize + 1);
  const maxAgents = floor + rng.int(5);
  const size = floor + rng.int(maxAgents - floor + 1);
  const niches = ['n0', 'n1', 'n2', 'n3', 'n4'].slice(0, 2 + rng.int(4));
  const level = () => Math.round((0.3 + 0.6 * rng.next()) * 10) / 10 + (rng.chance(0.5) ? 0 : rng.next() * 0.04);
  const roster: AgentView[] = [];
  for (let i = 0; i < size; i++) {
    const twinOf = i > 0 && rng.chance(0.3) ? roster[rng.int(i)] : undefined;
    const competence = Object.fromEntries(niches.map((n) => [n, twinOf ? (twinOf.competence[n] ?? 0.5) + rng.next() * 0.02 : level()]));
    const exposure = Object.fromEntries(niches.map((n) => [n, rng.int(25)]));
    const skill = rng.next();
    const history = rewards(rng.int(30)).map(() => (rng.chance(skill) ? 1 : 0));
    const parent = i > 0 && rng.chance(0.2) ? roster[rng.int(i)]!.id : undefined;
    roster.push(agent(`agent-${i}`, competence, {
      exposure, rewards: history, persona: rng.chance(0.3) ? `Expert in ${rng.pick(niches)}.` : 'Generalist.',
      origin: parent ? { kind: 'fork', parents: [parent], poolVersion: 1 } : undefined,
    }));
  }
  const config: LifecycleConfigInput = {
    genesis: { minRecurrence: 5, maxPerWindow: 1 + rng.int(3) },
    fork: { margin: 0.05, minCompetence: 0.5, minExposure: 2, maxPerWindow: 1 + rng.int(3) },
    merge: { minOverlap: 0.95, maxGap: 0.1, minObservations: 2, maxPerWindow: 1 + rng.int(3) },
    prune: { window: 5, lag: 0.1, maxPerWindow: 1 + rng.int(3) },
    specialize: { minCompetence: 0.5, margin: 0.05, minExposure: 1, maxPerWindow: 3 },
    specialist: { margin: 0.1, minExposure: 5 },
  };
  const recentNiches = Object.fromEntries(niches.map((n) => [n, rng.int(20)]));
  return ctxOf(roster, { niches, recentNiches, bounds: { minAgents, maxAgents, teamSize }, config, rng: rng.fork('ctx') });
}

describe('planLifecycle under many simultaneous triggers', () => {
  it('keeps every seeded random roster within bounds after each applied decision', () => {
    const applied: Record<string, number> = {};
    const skipped: string[] = [];
    for (let seed = 0; seed < 400; seed++) {
      const ctx = randomContext(seed);
      const plan = planLifecycle(ctx);
      const alive = new Set(ctx.roster.map((a) => a.id));
      const changed = new Map<string, number>();
      const floor = rosterFloor(ctx.bounds);
      for (const d of plan.applied) {
        applied[d.operator] = (applied[d.operator] ?? 0) + 1;
        for (const id of decisionAgents(d)) expect(alive.has(id), `seed ${seed}: ${d.operator} names gone agent ${id}`).toBe(true);
        if (rosterDelta(d) !== 0) for (const id of decisionAgents(d)) changed.set(id, (changed.get(id) ?? 0) + 1);
        for (const id of retiredBy(d)) alive.delete(id);
        if (rosterDelta(d) > 0) alive.add(`new-${alive.size}-${seed}-${d.operator}-${decisionAgents(d)[0]}`);
        expect(alive.size, `seed ${seed}`).toBeGreaterThanOrEqual(floor);
        expect(alive.size, `seed ${seed}`).toBeLessThanOrEqual(ctx.bounds.maxAgents);
        expect(alive.size).toBeGreaterThan(ctx.bounds.teamSize);
      }
      for (const [id, n] of changed) expect(n, `seed ${seed}: ${id}`).toBe(1);
      skipped.push(...plan.skipped.map((s) => s.because));
    }
    // The property is only meaningful if every operator fired and the planner had to intervene.
    for (const name of LIFECYCLE_ORDER) expect(applied[name] ?? 0, name).toBeGreaterThan(0);
    expect(skipped.some((b) => b.includes('above maxAgents'))).toBe(true);
    expect(skipped.some((b) => b.includes('already takes part'))).toBe(true);
  });

  it('is deterministic: the same seed gives the same plan, whatever rng the context carries', () => {
    for (let seed = 0; seed < 50; seed++) {
      const a = planLifecycle(randomContext(seed));
      expect(planLifecycle(randomContext(seed))).toEqual(a);
      expect(planLifecycle({ ...randomContext(seed), rng: createRng('other') })).toEqual(a);
    }
    expect(planLifecycle(randomContext(1))).not.toEqual(planLifecycle(randomContext(2)));
  });

  it('runs the built-in operators by default', () => {
    expect(Object.keys(LIFECYCLE_OPERATORS).sort()).toEqual([...LIFECYCLE_ORDER].sort());
  });
});
