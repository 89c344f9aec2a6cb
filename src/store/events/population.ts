import { z } from 'zod';
import { defineEvent, id, int, list, num, since, text, tokensByStage, version } from './define';

// Population level: CoDream, insight routing, staleness, the roster's lifecycle.

export const codreamSession = defineEvent('codream.session', 'A CoDream session after a task: trigger, members, proposals kept, insights made, tokens.', {
  taskId: id, niche: text, trigger: text, members: list(id), proposals: int, kept: int, insights: since(int), poolVersion: version,
  promptTokens: since(int), completionTokens: since(int),
});
export const codreamInsight = defineEvent('codream.insight', 'One insight a CoDream session produced.', {
  taskId: id, insightId: id, text, level: text, niche: since(text.nullable()), authors: list(id),
});
export const insightRouted = defineEvent('insight.routed', 'An insight routed to an agent, the competence figures that decided it, and whether it was stored.', {
  taskId: id, insightId: id, from: list(id), to: id, niche: since(text.nullable()), level: text, pool: since(text),
  median: num.nullable(), competence: num.nullable(), stored: z.boolean(),
});
const staleBase = {
  taskId: id, agentId: id, entryId: id, kind: z.enum(['lesson', 'insight']), version, current: version, gap: int,
};
export const evolveDropped = defineEvent('evolve.dropped', 'The staleness policy dropped a lesson or insight applied after the pool moved on.', {
  ...staleBase, reason: text, text,
});
export const evolvePatched = defineEvent('evolve.patched', 'The staleness policy rewrote a stale lesson or insight.', {
  ...staleBase, reason: text, from: text, to: text,
});
export const evolveFallback = defineEvent('evolve.fallback', 'The staleness policy kept an item because it got no usable verdict.', {
  ...staleBase, cause: text,
});
export const evolveFailed = defineEvent('evolve.failed', 'A task\'s evolve stage failed: where and why.', { taskId: id, stage: text, error: text });
export const evolveApplied = defineEvent('evolve.applied', 'A task\'s evolve outcome was applied: versions, gap, staleness counts, evolve calls and tokens.', {
  taskId: id, computedAt: version, poolVersion: version, gap: int, kept: int, patched: int, dropped: int, tokens: tokensByStage.optional(),
});
export const agentSpawned = defineEvent('agent.spawned', 'An agent joined the roster: seed, or an operator\'s child with parents and reason.', {
  agentId: id, origin: text, persona: since(text), parents: list(id).optional(), reason: text.optional(), niche: text.optional(),
  poolVersion: version.optional(), window: int.optional(),
});
export const agentRetired = defineEvent('agent.retired', 'An agent left the roster (pruned, or merged into its successor).', {
  agentId: id, reason: text, successor: since(id.nullable()), window: since(int), poolVersion: version,
});
export const agentPersona = defineEvent('agent.persona', 'An agent was given a new persona (specialize).', {
  agentId: id, persona: text, reason: text, niche: text, window: since(int), poolVersion: version,
});
export const lifecycleWindow = defineEvent('lifecycle.window', 'A lifecycle window: the roster\'s competence and exposure, the niches\' specialists.', {
  window: int, poolVersion: version, tasksSeen: since(int),
  roster: list(z.strictObject({ agentId: id, competence: z.record(z.string(), num), exposure: since(z.record(z.string(), num)) })),
  specialists: since(z.record(z.string(), id.nullable())), stable: z.record(z.string(), id),
});
export const lifecycleDecision = defineEvent('lifecycle.decision', 'A lifecycle operator\'s decision that was applied, and the agents it touched.', {
  window: int, operator: text, agents: list(id), reason: text, poolVersion: version,
});
export const lifecycleSkipped = defineEvent('lifecycle.skipped', 'A lifecycle decision that was planned but not applied, and why.', {
  window: int, operator: text, reason: text, because: text,
});
export const lifecycleUsage = defineEvent('lifecycle.usage', 'Calls and tokens the lifecycle spent in a window (persona writing).', {
  window: int, tokens: tokensByStage,
});

export const POPULATION_EVENTS = [
  codreamSession, codreamInsight, insightRouted, evolveDropped, evolvePatched, evolveFallback, evolveFailed, evolveApplied,
  agentSpawned, agentRetired, agentPersona, lifecycleWindow, lifecycleDecision, lifecycleSkipped, lifecycleUsage,
] as const;
