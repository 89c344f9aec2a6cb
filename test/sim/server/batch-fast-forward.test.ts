import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { BatchScheduler } from '../../../src/sim/server/batch-scheduler';
import { QWEN3_8B_H100_VLLM, type BatchProfile } from '../../../src/llm/latency-profiles';
import { VirtualTimer } from '../../../src/sim/server/sim-timer';

interface Trace { first?: number; done?: number; cancelledAt?: number; generated: number }

/**
 * A randomized workload on one scheduler: requests arrive at random times with random prompt and
 * output lengths (some sharing prefixes), and some are cancelled at random times. Everything the
 * workload does comes from its own rng, so both schedulers see the same inputs.
 */
function workload(profile: BatchProfile, seed: string, fastForward: boolean, n: number) {
  const timer = new VirtualTimer();
  const sched = new BatchScheduler(profile, timer, createRng(`${seed}/latency`), { fastForward });
  const rng = createRng(`${seed}/workload`);
  const traces: Trace[] = [];
  for (let i = 0; i < n; i++) {
    const at = rng.next() * 20_000;
    const promptTokens = 1 + rng.int(3000);
    const outputTokens = 1 + rng.int(rng.chance(0.2) ? 6000 : 800);
    const shared = rng.int(4);
    const prefixBlocks = Array.from({ length: Math.floor(promptTokens / 16) }, (_, b) => (b < 20 ? shared * 1000 + b : i * 100_000 + b));
    const cancelAfter = rng.chance(0.15) ? rng.next() * 15_000 : undefined;
    const t: Trace = { generated: 0 };
    traces.push(t);
    timer.at(at, () => {
      const h = sched.submit({ promptTokens, outputTokens, prefixBlocks }, {
        onFirstToken: () => { t.first = timer.now(); },
        onTokens: (g) => { t.generated = g; },
        onDone: () => { t.done = timer.now(); },
      });
      if (cancelAfter !== undefined) {
        timer.after(cancelAfter, () => {
          if (t.done !== undefined) return;
          h.cancel();
          t.cancelledAt = timer.now();
        });
      }
    });
  }
  timer.run();
  return { traces, events: sched.stepEvents };
}

describe('BatchScheduler fast-forward', () => {
  // A small KV cache forces preemption and blocked admissions; the default one exercises long jumps.
  const small: BatchProfile = { ...QWEN3_8B_H100_VLLM, name: 'small-kv', kvCacheTokens: 24_000, maxRunning: 48 };
  for (const [name, profile, n] of [['default profile', QWEN3_8B_H100_VLLM, 120], ['small KV cache', small, 80]] as const) {
    it(`gives the same first-token, finish and cancel figures as step-by-step stepping (${name})`, () => {
      for (const seed of ['a', 'b', 'c']) {
        const stepwise = workload(profile, seed, false, n);
        const jumped = workload(profile, seed, true, n);
        expect(jumped.traces.some((t) => t.cancelledAt !== undefined)).toBe(true);
        expect(jumped.traces.filter((t) => t.done !== undefined).length).toBeGreaterThan(n / 2);
        for (let i = 0; i < n; i++) {
          const a = stepwise.traces[i]!;
          const b = jumped.traces[i]!;
          expect(b.first, `request ${i} first token (seed ${seed})`).toBe(a.first);
          expect(b.done, `request ${i} done (seed ${seed})`).toBe(a.done);
          expect(b.cancelledAt).toBe(a.cancelledAt);
          expect(b.generated, `request ${i} tokens (seed ${seed})`).toBe(a.generated);
        }
        // The point of it: far fewer timer events.
        expect(jumped.events * 5).toBeLessThan(stepwise.events);
      }
    });
  }

  it('reports a cancelled request\'s tokens up to the cancel, mid-jump', () => {
    const timer = new VirtualTimer();
    const sched = new BatchScheduler(QWEN3_8B_H100_VLLM, timer, createRng('x'), { fastForward: true });
    let generated = 0;
    let done = false;
    const h = sched.submit({ promptTokens: 100, outputTokens: 5000 }, { onTokens: (g) => { generated = g; }, onDone: () => { done = true; } });
    timer.run(2000);
    h.cancel();
    // ≈ 7.3 ms a token after ≈ 60 ms to the first: about 265 tokens by 2 s, reported at the cancel.
    expect(generated).toBeGreaterThan(230);
    expect(generated).toBeLessThan(300);
    const reported = generated;
    // Only the step in flight at the cancel is left; it reports nothing.
    expect(timer.run()).toBe(1);
    expect(generated).toBe(reported);
    expect(done).toBe(false);
  });
});
