import { describe, expect, it } from 'vitest';
import { SummaryBuilder } from '../../../src/engine/loop/summary';
import { formatSummary } from '../../../src/cli/format-summary';
import { item } from '../../population/staleness/staleness-fixtures';

const rest = {
  scenario: 's', variant: 'v', seed: 1, backend: 'sim', inFlight: 8, leadlearnEntries: 0, specialists: {}, stableSpecialists: 0,
  lineage: { genesis: 0, fork: 0, merge: 0, prune: 0, specialize: 0 }, agents: { count: 0, active: 0, lessons: 0, metaInsights: 0 },
  tokens: { total: { calls: 0, promptTokens: 0, completionTokens: 0 } }, poolVersion: 0, runDir: '/tmp/x', timing: { wallSeconds: 0, tasksPerSecond: 0 },
};

describe('summary: staleness', () => {
  it('counts each decision once, calls and fallbacks beside them, under the scenario\'s policy and tau', () => {
    const b = new SummaryBuilder(['algebra'], { policy: 'reflective', tau: 4 });
    b.addStaleness({ action: 'keep', calledModel: false });
    b.addStaleness({ action: 'keep', calledModel: true, fallback: 'unusable reply' });
    b.addStaleness({ action: 'drop', reason: 'r', calledModel: true });
    b.addStaleness({ action: 'drop', reason: 'pruned', calledModel: false });
    b.addStaleness({ action: 'patch', reason: 'r', request: item('a', 'x', 0).request, calledModel: true });
    const s = b.build(rest);
    expect(s.staleness).toEqual({ policy: 'reflective', tau: 4, kept: 2, patched: 1, dropped: 2, reflectiveCalls: 3, fallbacks: 1 });
    expect(formatSummary(s)).toContain('staleness reflective (tau 4): kept 2, patched 1, dropped 2 · model calls 3, fallbacks 1');
  });

  it('defaults to full with tau 8 and zero counts', () => {
    expect(new SummaryBuilder([]).build(rest).staleness).toEqual({ policy: 'full', tau: 8, kept: 0, patched: 0, dropped: 0, reflectiveCalls: 0, fallbacks: 0 });
  });
});

describe('summary: virtual time in the text', () => {
  it('prints the virtual hours, output tokens/s and utilization a --latency run exists to measure', () => {
    const s = { ...new SummaryBuilder([]).build(rest), latency: 'qwen3-8b-h100-vllm', virtualSeconds: 5400, tokensPerSecond: 812.4, utilization: 0.2345 };
    expect(formatSummary(s)).toContain('virtual time on qwen3-8b-h100-vllm: 1.50 h (5400 s) · 812 output tokens/s · utilization 23.4 %');
    // A run in zero time has no such line.
    expect(formatSummary(new SummaryBuilder([]).build(rest))).not.toContain('virtual time');
  });
});

describe('summary: flaky verdicts', () => {
  it('counts graded tasks whose verdict was flaky, absent when there was none, and says so in the text', () => {
    const none = new SummaryBuilder(['code']);
    none.add('code', 1, true);
    expect('flakyVerdicts' in none.build(rest)).toBe(false);
    expect(formatSummary(none.build(rest))).not.toContain('FLAKY');
    const b = new SummaryBuilder(['code']);
    b.add('code', 1, true);
    b.addFlaky();
    b.add('code', 0, false);
    b.addFlaky();
    const s = b.build(rest);
    expect(s.flakyVerdicts).toBe(2);
    expect(formatSummary(s)).toContain('FLAKY: 2 graded programs gave two verdicts on two runs');
  });
});
