import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { ApiScheduler } from '../../../src/sim/server/api-scheduler';
import { BatchScheduler } from '../../../src/sim/server/batch-scheduler';
import type { LatencyScheduler, SeqRequest } from '../../../src/sim/server/latency-scheduler';
import { API_SMALL, QWEN3_8B_H100_VLLM, type BatchProfile } from '../../../src/llm/latency-profiles';
import { VirtualTimer } from '../../../src/sim/server/sim-timer';

interface Trace { submitted: number; first?: number; done?: number; tokens: Array<[number, number]> }

/** Submit requests at time 0 and run the model to completion in virtual time. */
function runBatch(sched: LatencyScheduler, timer: VirtualTimer, reqs: SeqRequest[]): Trace[] {
  const traces = reqs.map((r) => {
    const t: Trace = { submitted: timer.now(), tokens: [] };
    sched.submit(r, {
      onFirstToken: () => { t.first = timer.now(); },
      onTokens: (g) => { t.tokens.push([timer.now(), g]); },
      onDone: () => { t.done = timer.now(); },
    });
    return t;
  });
  timer.run();
  return traces;
}

const within = (x: number, target: number, tol = 0.2) => Math.abs(x - target) <= tol * target;
/** Decode speed of one request: tokens after the first over the time they took (tok/s). */
const decodeRate = (t: Trace, n: number) => ((n - 1) / (t.done! - t.first!)) * 1000;

function batch(profile: BatchProfile = QWEN3_8B_H100_VLLM) {
  const timer = new VirtualTimer();
  return { timer, sched: new BatchScheduler(profile, timer, createRng('test')) };
}

/** `c` concurrent requests at ≈1k context: 900 prompt tokens (distinct prefixes) + 200 output tokens. */
function concurrent(c: number) {
  const { timer, sched } = batch();
  const reqs = Array.from({ length: c }, (_, i) => ({ promptTokens: 900, outputTokens: 200, prefixBlocks: [i + 1] }));
  const traces = runBatch(sched, timer, reqs);
  // Steady state, as the table means it: the window in which every request decodes (from the last
  // first token to the first finish), so prefill steps of late arrivals do not count.
  const from = Math.max(...traces.map((t) => t.first!));
  const to = Math.min(...traces.map((t) => t.done!));
  const tokensAt = (t: Trace, time: number) => t.tokens.filter(([at]) => at <= time).at(-1)?.[1] ?? 0;
  const aggregate = (traces.reduce((a, t) => a + tokensAt(t, to) - tokensAt(t, from), 0) / (to - from)) * 1000;
  return { traces, perRequest: aggregate / c, aggregate };
}

describe('continuous-batching latency model (qwen3-8b-h100-vllm, virtual time)', () => {
  it('decodes ≈ 137 tok/s for a single request (docs/latency-profiles.md table)', () => {
    const { perRequest, traces } = concurrent(1);
    expect(within(perRequest, 137)).toBe(true);
    expect(within(decodeRate(traces[0]!, 200), 137)).toBe(true);
    // TTFT = 50 ms overhead + one prefill step of 900 tokens (≈ 7.2 + 0.035·900 ms).
    expect(within(traces[0]!.first!, 50 + 7.2 + 0.035 * 900, 0.15)).toBe(true);
  });

  it('decodes ≈ 130 tok/s per request at concurrency 8', () => {
    expect(within(concurrent(8).perRequest, 130)).toBe(true);
  });

  it('decodes ≈ 77 tok/s per request and ≈ 4.9k tok/s aggregate at concurrency 64 with 1k context', () => {
    const { perRequest, aggregate } = concurrent(64);
    expect(within(perRequest, 77)).toBe(true);
    expect(within(aggregate, 4900)).toBe(true);
  });

  it('slows every request down as the batch grows', () => {
    expect(concurrent(64).perRequest).toBeLessThan(concurrent(8).perRequest);
  });

  it('prefills long prompts in chunks of at most 8192 tokens', () => {
    const { timer, sched } = batch();
    const [t] = runBatch(sched, timer, [{ promptTokens: 20_000, outputTokens: 2 }]);
    // Three prefill steps (8192 + 8192 + 3616 tokens), each ≈ 7.2 + 0.035·chunk ms (±10 %).
    const expected = 50 + 3 * 7.2 + 0.035 * 20_000;
    expect(within(t!.first!, expected, 0.12)).toBe(true);
  });

  it('serves a repeated prompt prefix from the prefix cache (only uncached tokens cost prefill)', () => {
    const { timer, sched } = batch();
    const blocks = Array.from({ length: 250 }, (_, i) => 1000 + i);
    const [cold] = runBatch(sched, timer, [{ promptTokens: 4000, outputTokens: 1, prefixBlocks: blocks }]);
    const t0 = timer.now();
    const [warm] = runBatch(sched, timer, [{ promptTokens: 4000, outputTokens: 1, prefixBlocks: blocks }]);
    expect(cold!.first! - cold!.submitted).toBeGreaterThan(150);
    expect(warm!.first! - t0).toBeLessThan(70);
  });

  it('queues requests when the KV cache is full instead of over-admitting', () => {
    const small: BatchProfile = { ...QWEN3_8B_H100_VLLM, kvCacheTokens: 16 * 200, jitter: 0 };
    const { timer, sched } = batch(small);
    let peak = 0;
    const reqs = Array.from({ length: 6 }, () => ({ promptTokens: 1000, outputTokens: 50 }));
    const traces = reqs.map((r) => {
      const t: Trace = { submitted: 0, tokens: [] };
      sched.submit(r, { onTokens: () => { peak = Math.max(peak, sched.load().running); }, onDone: () => { t.done = timer.now(); } });
      return t;
    });
    timer.run();
    expect(traces.every((t) => t.done !== undefined)).toBe(true);
    // 200 blocks hold at most three 1000-token sequences.
    expect(peak).toBeLessThanOrEqual(3);
    expect(sched.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('never calls back a cancelled request and frees its place', () => {
    const { timer, sched } = batch();
    let calls = 0;
    const h = sched.submit({ promptTokens: 100, outputTokens: 1000 }, { onTokens: () => { calls++; }, onDone: () => { calls += 1000; } });
    timer.run(200);
    const before = calls;
    expect(before).toBeGreaterThan(0);
    h.cancel();
    timer.run();
    expect(calls).toBe(before);
    expect(sched.load()).toEqual({ running: 0, waiting: 0 });
    expect(timer.pending()).toBe(0);
  });
});

describe('hosted-API latency model (api-small, virtual time)', () => {
  it('draws log-normal TTFTs with median ≈ 0.7 s and p90 ≈ 1.5 s, and decodes ≈ 70 tok/s whatever the load', () => {
    const timer = new VirtualTimer();
    const sched = new ApiScheduler(API_SMALL, timer, createRng('api'));
    const traces = runBatch(sched, timer, Array.from({ length: 400 }, () => ({ promptTokens: 500, outputTokens: 141 })));
    const ttfts = traces.map((t) => t.first! - t.submitted).sort((a, b) => a - b);
    expect(within(ttfts[200]!, 700)).toBe(true);
    expect(within(ttfts[360]!, 1500, 0.25)).toBe(true);
    for (const t of traces.slice(0, 20)) expect(within(decodeRate(t, 141), 70, 0.05)).toBe(true);
  });
});
