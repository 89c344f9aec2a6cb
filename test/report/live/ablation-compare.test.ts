import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock';
import { RunTraceCollector } from '../../../src/report/collect/run-trace-collector';
import { liveAblationData, renderAblationView } from '../../../src/report/live/ablation-compare';

/** A run's trace after `rewards` graded tasks (one niche), with a CoDream session and its tokens. */
function trace(rewards: number[]) {
  const t = new RunTraceCollector();
  rewards.forEach((reward, i) => {
    t.add({ type: 'task.graded', taskId: `t${i}`, niche: i % 2 ? 'algebra' : 'arithmetic', reward, correct: reward === 1, extracted: '1', detail: '', disagreement: false });
    t.add({ type: 'task.done', taskId: `t${i}`, status: 'graded', reward, poolVersion: i + 1, startedAt: i, tokens: { solve: { calls: 1, promptTokens: 100, completionTokens: 50 } } });
  });
  t.add({ type: 'codream.session', taskId: 't0', niche: 'arithmetic', trigger: 'failure', members: ['a'], proposals: 1, kept: 1, insights: 0, poolVersion: 1 });
  return t.trace();
}

describe('the live comparison of an ablation', () => {
  it('draws the variants so far, saying after how many tasks, until the sweep has ended', async () => {
    const runs = [
      { name: 'evochamber-s1', dir: '/x/evochamber-s1', trace: trace([1, 1, 0, 1]) },
      { name: 'single-agent-s1', dir: '/x/single-agent-s1', trace: trace([0, 1, 0]) },
      { name: 'no-codream-s1', dir: '/x/no-codream-s1', trace: trace([]) },
    ];
    const d = liveAblationData('/x', ['single-agent', 'evochamber', 'no-codream'], runs, new ManualClock());
    // Plan order; a run with nothing graded yet has no figures.
    expect(d.variants.map((v) => v.name)).toEqual(['single-agent', 'evochamber']);
    expect(d.variants[1]!.accuracy.mean).toBe(0.75);
    expect(d.variants[1]!.perNiche).toEqual([{ niche: 'arithmetic', mean: 0.5, sd: 0 }, { niche: 'algebra', mean: 1, sd: 0 }]);
    expect(d.comparison.cost.map((c) => [c.variant, c.tokens])).toEqual([['single-agent', 450], ['evochamber', 600]]);
    const live = await renderAblationView(d, 7);
    expect(live.html).toContain('Rolling accuracy over the stream so far (after 7 tasks)');
    expect(live.html).toContain('Accuracy per variant so far (after 7 tasks)');
    const ended = await renderAblationView(d, 7, true);
    expect(ended.html).not.toContain('so far');
    expect((await renderAblationView(liveAblationData('/x', ['a'], [], new ManualClock()), 0)).html).toContain('No run has graded a task yet');
  });
});
