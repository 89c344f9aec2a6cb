import { z } from 'zod';
import { defineEvent, int, num, text } from './define';

// Engine level: how the loop ran (not what the agents did).

const stage = z.enum(['solve', 'evolve']);
export const engineConcurrency = defineEvent('engine.concurrency', 'The adaptive controller changed a stage\'s limit, with the figures that decided it.', {
  stage, from: int, to: int,
  reason: z.enum(['below-median', 'above-median', 'evolve-backlog', 'gap-over-tau', 'probe', 'probe-down', 'probe-undone']),
  detail: text, at: num, committed: int,
  rates: z.strictObject({ solve: num.nullable(), evolve: num.nullable() }),
  throughput: z.strictObject({ solve: num, evolve: num }),
  tokensPerSecond: num.nullable(), median: num.nullable(), gap: num.nullable(), backlog: num,
});

export const ENGINE_EVENTS = [engineConcurrency] as const;
