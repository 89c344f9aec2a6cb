import { describe, expect, it } from 'vitest';
import { DEFAULT_LIFECYCLE, lifecycleConfigSchema } from '../../../src/population/lifecycle/lifecycle-config';

describe('lifecycle config', () => {
  it('fills every field with its default', () => {
    expect(DEFAULT_LIFECYCLE).toMatchObject({ every: 60, minAgents: 3, maxAgents: 8, genesis: { enabled: true, minRecurrence: 10 }, prune: { window: 20, lag: 0.2 } });
  });

  it('overrides one nested field and keeps the rest of its section', () => {
    const c = lifecycleConfigSchema.parse({ fork: { margin: 0.3 } });
    expect(c.fork).toEqual({ ...DEFAULT_LIFECYCLE.fork, margin: 0.3 });
    expect(c.merge).toEqual(DEFAULT_LIFECYCLE.merge);
  });

  it('rejects unknown fields and inverted bounds', () => {
    expect(lifecycleConfigSchema.safeParse({ prune: { lagg: 0.1 } }).success).toBe(false);
    expect(lifecycleConfigSchema.safeParse({ minAgents: 5, maxAgents: 4 }).success).toBe(false);
    expect(lifecycleConfigSchema.safeParse({ fork: { margin: 1.5 } }).success).toBe(false);
  });
});
