import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isCompletionAborted, type Completion, type CompletionAbortedError, type CompletionRequest, type LanguageModel } from '../../../src/llm/model';
import { QWEN3_8B_H100_VLLM, predictedStepMs } from '../../../src/llm/latency-profiles';
import { maxTokensPerSecond } from '../../../src/llm/server-capacity';
import { VirtualServerModel } from '../../../src/sim/virtual/virtual-server-model';

/** An instant model whose completion length is the number in the prompt ("n=300"). */
const fake: LanguageModel = {
  name: 'fake',
  complete: async (req: CompletionRequest): Promise<Completion> => {
    const n = Number(/n=(\d+)/.exec(req.messages[0]!.content)?.[1] ?? 100);
    return { text: `answer ${n}`, usage: { promptTokens: 200, completionTokens: n }, timing: { ttftMs: 0, totalMs: 0 }, model: 'fake' };
  },
  embed: async (texts) => texts.map(() => new Float32Array([1])),
};
const ask = (m: LanguageModel, key: string, n: number, signal?: AbortSignal) =>
  m.complete({ messages: [{ role: 'user', content: `${key} n=${n}` }], stage: 'solve', seedKey: key, ...(signal ? { signal } : {}) });

describe('VirtualServerModel', () => {
  it('answers at the latency model\'s time: a lone request decodes at ≈ 137 tok/s in virtual ms, without waiting', async () => {
    const m = new VirtualServerModel(fake, { profile: 'qwen3-8b-h100-vllm', seed: 1 });
    const t0 = performance.now();
    const out = await ask(m, 'a', 1000);
    expect(performance.now() - t0).toBeLessThan(1000);
    // 50 ms overhead + a prefill step, then 999 decode steps of ≈ 7.3 ms.
    expect(out.timing.totalMs).toBeGreaterThan(50 + 999 * 7.2 * 0.95);
    expect(out.timing.totalMs).toBeLessThan(50 + 999 * 7.3 * 1.05 + 30);
    expect(out.timing.ttftMs).toBeGreaterThan(50);
    expect(out.timing.ttftMs).toBeLessThan(80);
    const s = m.stats();
    expect(s.generatedTokens).toBe(1000);
    expect(s.virtualSeconds * 1000).toBe(out.timing.totalMs);
    expect(s.tokensPerSecond).toBeCloseTo(1000 / s.virtualSeconds, 6);
    // One sequence is a sliver of what the H100 model can do with a full batch.
    expect(s.utilization!).toBeGreaterThan(0);
    expect(s.utilization!).toBeLessThan(0.05);
  });

  it('does not depend on which real I/O finishes first: held work stops the clock, and one instant\'s requests are admitted by key', async () => {
    const run = async (delays: number[]) => {
      const m = new VirtualServerModel(fake, { profile: 'qwen3-8b-h100-vllm', seed: 3 });
      const finished: Record<string, number> = {};
      // A long request keeps the server busy while the held "graders" run in real time.
      const background = ask(m, 'bg', 3000);
      const first = await ask(m, 'first', 50);
      await Promise.all(delays.map(async (d, i) => {
        await m.hold(sleep(d));
        // The engine hops through setImmediate once between commits; the clock waits for up to three hops.
        await new Promise<void>((r) => setImmediate(r));
        await new Promise<void>((r) => setImmediate(r));
        await new Promise<void>((r) => setImmediate(r));
        const out = await ask(m, `task-${i}`, 100 + 50 * i);
        finished[`task-${i}`] = first.timing.totalMs + out.timing.totalMs;
      }));
      finished.bg = (await background).timing.totalMs;
      return finished;
    };
    const a = await run([5, 40, 20]);
    const b = await run([40, 5, 1]);
    expect(b).toEqual(a);
    // All three were submitted at the instant `first` finished: the batch shares steps, so
    // task-0 (100 tokens) finishes before task-2 (200 tokens).
    expect(a['task-0']!).toBeLessThan(a['task-2']!);
  });

  it('delivers held results in the order the holds were taken, once all have settled, whichever finished first', async () => {
    for (const delays of [[30, 1, 10], [1, 30, 10]]) {
      const m = new VirtualServerModel(fake, { profile: 'qwen3-8b-h100-vllm', seed: 1 });
      const order: number[] = [];
      await Promise.all(delays.map((d, i) => m.hold(sleep(d)).then(() => { order.push(i); })));
      expect(order).toEqual([0, 1, 2]);
      const rejected = await m.hold(Promise.reject(new Error('sandbox down'))).catch((e: Error) => e.message);
      expect(rejected).toBe('sandbox down');
    }
  });

  it('an aborted request is cancelled mid-decode and says how many tokens it saved; one already answered resolves', async () => {
    const m = new VirtualServerModel(fake, { profile: 'qwen3-8b-h100-vllm', seed: 1 });
    const ctl = new AbortController();
    const long = ask(m, 'long', 4000, ctl.signal);
    const short = await ask(m, 'short', 200);
    ctl.abort();
    const err = await long.then(() => null, (e: unknown) => e);
    expect(isCompletionAborted(err)).toBe(true);
    const { tokensGenerated, tokensSaved } = err as CompletionAbortedError;
    // About as many tokens as the short request decoded beside it.
    expect(tokensGenerated!).toBeGreaterThan(150);
    expect(tokensGenerated!).toBeLessThan(260);
    expect(tokensGenerated! + tokensSaved!).toBe(4000);
    expect(m.stats().generatedTokens).toBe(200 + tokensGenerated!);
    expect(m.stats().virtualSeconds * 1000).toBe(short.timing.totalMs);

    const done = new AbortController();
    const answered = await ask(m, 'done', 30, done.signal);
    done.abort();
    expect(answered.text).toBe('answer 30');
    expect(m.stats().aborted).toBe(1);
  });

  it('api-small: time to first token and decode at 70 tok/s, independent of load', async () => {
    const m = new VirtualServerModel(fake, { profile: 'api-small', seed: 1 });
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(m, `k${i}`, 701)));
    for (const o of outs) expect(o.timing.totalMs - o.timing.ttftMs).toBeCloseTo(10_000, 6);
    const ttfts = outs.map((o) => o.timing.ttftMs).sort((a, b) => a - b);
    expect(ttfts[10]!).toBeGreaterThan(300);
    expect(ttfts[10]!).toBeLessThan(1500);
    expect(m.stats().utilization).not.toBeNull();
  });

  it('maximum tokens/s of the batch profile: the largest batch the KV cache holds at the run\'s context', () => {
    const shape = { meanPromptTokens: 1500, meanCompletionTokens: 1000, meanDecodeContext: 2000 };
    const n = Math.floor(Math.floor(350_000 / 16) / Math.ceil(2001 / 16));
    expect(maxTokensPerSecond(QWEN3_8B_H100_VLLM, shape)).toBeCloseTo((n * 1000) / predictedStepMs(QWEN3_8B_H100_VLLM, n, 2000), 6);
    // Short contexts: capped by maxRunning instead.
    const short = maxTokensPerSecond(QWEN3_8B_H100_VLLM, { ...shape, meanDecodeContext: 100 });
    expect(short).toBeCloseTo((1024 * 1000) / predictedStepMs(QWEN3_8B_H100_VLLM, 1024, 100), 6);
  });
});
