import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { LifecycleClock } from '../../../src/engine/loop/lifecycle-clock';
import type { WindowInput } from '../../../src/population/lifecycle/lifecycle-window';
import type { LifecycleConfig } from '../../../src/population/lifecycle/lifecycle-config';

const life = { every: 3 } as LifecycleConfig;

function clock(usage?: { calls: number; promptTokens: number; completionTokens: number }[]) {
  const windows: Array<Pick<WindowInput, 'window' | 'tasksSeen' | 'nichesSeen' | 'recentNiches' | 'operators' | 'nextAgent'>> = [];
  const events: unknown[] = [];
  const spent: unknown[] = [];
  let u = 0;
  const c = new LifecycleClock({
    supervisor: null as never, model: null as never, log: { append: (e: unknown) => events.push(e) } as never, teamSize: 3, specs: new Map(),
    c0: 0.5, eta: 0.1, tracker: null as never, lineage: null as never, firstNewAgent: 5, rng: createRng(1),
    ...(usage ? { usage: { stage: () => usage[u++]! } as never, budget: { add: (x: unknown) => spent.push(x) } } : {}),
    runWindow: async (w) => {
      windows.push({ window: w.window, tasksSeen: w.tasksSeen, nichesSeen: [...w.nichesSeen], recentNiches: { ...w.recentNiches }, operators: w.operators, nextAgent: w.nextAgent });
      return w.nextAgent + 1;
    },
  });
  return { c, windows, events, spent };
}

describe('lifecycle clock', () => {
  it('is due every `every` commits, and runs numbered windows with the niches seen since the last', async () => {
    const { c, windows } = clock();
    const due: boolean[] = [];
    for (const niche of ['a', 'b', 'a', 'c', 'c', 'c']) {
      c.tick(niche);
      due.push(c.due(life));
      if (c.due(life)) await c.window(life, true);
    }
    expect(due).toEqual([false, false, true, false, false, true]);
    expect(windows).toEqual([
      { window: 1, tasksSeen: 3, nichesSeen: ['a', 'b'], recentNiches: { a: 2, b: 1 }, operators: true, nextAgent: 5 },
      { window: 2, tasksSeen: 6, nichesSeen: ['a', 'b', 'c'], recentNiches: { c: 3 }, operators: true, nextAgent: 6 },
    ]);
  });

  it('says when the stream stopped mid-window', () => {
    const { c } = clock();
    expect(c.partial(life)).toBe(false);
    c.tick('a');
    expect(c.partial(life)).toBe(true);
  });

  it('charges a window\'s persona writing to the budget and logs it as the window\'s usage', async () => {
    const { c, events, spent } = clock([{ calls: 1, promptTokens: 10, completionTokens: 20 }, { calls: 3, promptTokens: 40, completionTokens: 70 }]);
    c.tick('a');
    await c.window(life, true);
    const tokens = { lifecycle: { calls: 2, promptTokens: 30, completionTokens: 50 } };
    expect(spent).toEqual([tokens]);
    expect(events).toEqual([{ type: 'lifecycle.usage', window: 1, tokens }]);
  });
});
