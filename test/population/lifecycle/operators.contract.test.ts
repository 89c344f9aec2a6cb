import { describe, expect, it } from 'vitest';
import { LIFECYCLE_OPERATOR_KINDS, LIFECYCLE_OPERATOR_LIST } from '../../../src/population/lifecycle';
import { knobViolation } from '../../../src/core/knob';
import { planLifecycle } from '../../../src/population/lifecycle/plan';
import { agent, ctxOf, rewards } from './fixtures';

/**
 * Every lifecycle operator keeps its contract (population/lifecycle/operator.ts): `decide` is pure
 * and deterministic, quotes its numbers, respects `enabled`, `maxPerWindow` and the roster bounds,
 * names only agents of the roster (retiring only agents it names), and its knobs name settings of its
 * own config with defaults in bounds. On the varied roster below every built-in operator fires;
 * an exception would be declared here with why.
 */
const EXCEPTIONS: Readonly<Record<string, { readonly firesOnVariedRoster: boolean; readonly why: string }>> = {
  genesis: { firesOnVariedRoster: true, why: 'geometry recurs and nobody leads it' },
  fork: { firesOnVariedRoster: true, why: 'ace dominates algebra' },
  merge: { firesOnVariedRoster: true, why: 'twin-1 and twin-2 have the same skills' },
  prune: { firesOnVariedRoster: true, why: 'laggard\'s recent rewards trail the pool' },
  specialize: { firesOnVariedRoster: true, why: 'ace is strong on algebra and its persona does not say so' },
};

/** Six agents: an ace, twins, a laggard, two generalists; `geometry` recurs with no specialist. */
function variedRoster() {
  const base = { algebra: 0.5, arithmetic: 0.5, geometry: 0.3 };
  return [
    agent('ace', { algebra: 0.95, arithmetic: 0.5, geometry: 0.3 }, { rewards: rewards(30, 0.8) }),
    agent('twin-1', { algebra: 0.6, arithmetic: 0.6, geometry: 0.31 }, { rewards: rewards(30, 0.6) }),
    agent('twin-2', { algebra: 0.6, arithmetic: 0.6, geometry: 0.31 }, { rewards: rewards(30, 0.6) }),
    agent('laggard', base, { rewards: rewards(30, 0.05) }),
    agent('gen-1', base, { rewards: rewards(30, 0.6) }),
    agent('gen-2', { ...base, arithmetic: 0.55 }, { rewards: rewards(30, 0.6) }),
  ];
}
const varied = (config: Record<string, unknown> = {}, bounds = {}) =>
  ctxOf(variedRoster(), { niches: ['algebra', 'arithmetic', 'geometry'], recentNiches: { geometry: 30, algebra: 20 }, config: config as never, bounds, unspecializedFor: { geometry: 3 } });

describe.each(LIFECYCLE_OPERATOR_KINDS.list().map((d) => [d.name, d] as const))('lifecycle operator contract: %s', (name, op) => {
  const declared = EXCEPTIONS[name];

  it('declares its exceptions here, and its config has every default and an enabled switch', () => {
    // A built-in operator declares them; one added later gets the rest of the contract without (no edit here).
    if (LIFECYCLE_OPERATOR_LIST.some((d) => d.name === name)) expect(declared, `declare ${name}'s exceptions in this suite`).toBeDefined();
    const defaults = (op.config as { parse(x: unknown): Record<string, unknown> }).parse({});
    expect(defaults.enabled).toBe(true);
  });

  it('decides purely and the same way twice, quoting its numbers and naming only agents of the roster', () => {
    const ctx = varied();
    const before = JSON.stringify(ctx.roster.map((a) => [a.id, a.competence, a.persona, a.history.length]));
    const a = op.decide(ctx);
    const b = op.decide(varied());
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(ctx.roster.map((x) => [x.id, x.competence, x.persona, x.history.length]))).toBe(before);
    if (declared) expect(a.length > 0).toBe(declared.firesOnVariedRoster);
    const ids = ctx.roster.map((x) => x.id);
    for (const d of a) {
      expect(d.operator).toBe(name);
      expect(d.reason).toMatch(/\d/);
      for (const id of op.agents(d)) expect(ids).toContain(id);
      for (const id of op.retires(d)) expect(op.agents(d)).toContain(id);
      if (op.rosterDelta >= 0) expect(op.retires(d).length).toBeLessThanOrEqual(op.rosterDelta === 0 ? 1 : 0);
    }
  });

  it('decides nothing with maxPerWindow 0, and the window does not run it when disabled', () => {
    expect(op.decide(varied({ [name]: { maxPerWindow: 0 } }))).toEqual([]);
    // Only this operator in the window, so no other one changes the roster before it.
    const others = Object.fromEntries(LIFECYCLE_OPERATOR_KINDS.list().filter((o) => o.name !== name).map((o) => [o.name, { enabled: false }]));
    const planned = (config: Record<string, unknown>) => planLifecycle(varied({ ...others, ...config })).applied.filter((d) => d.operator === name);
    expect(planned({}).length > 0).toBe(declared ? declared.firesOnVariedRoster : op.decide(varied()).length > 0);
    expect(planned({ [name]: { enabled: false } })).toEqual([]);
  });

  it('keeps the roster within its bounds', () => {
    // Six active agents: growth is refused at a maximum of six, removal at a floor of six.
    if (op.rosterDelta > 0) expect(op.decide(varied({}, { maxAgents: 6 }))).toEqual([]);
    if (op.rosterDelta < 0) expect(op.decide(varied({}, { minAgents: 6 }))).toEqual([]);
  });

  it('declares knobs that name settings of its own config, with their defaults in bounds', () => {
    const defaults = (op.config as { parse(x: unknown): Record<string, unknown> }).parse({});
    for (const k of op.knobs ?? []) {
      expect(Object.keys(defaults), k.path).toContain(k.path);
      expect(knobViolation(k, defaults[k.path]), k.path).toBeNull();
    }
  });
});
