import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { QWEN3_8B_H100_VLLM, type BatchProfile } from '../../../src/llm/latency-profiles';
import type { Completion, CompletionRequest, LanguageModel } from '../../../src/llm/model';
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { BatchScheduler } from '../../../src/sim/server/batch-scheduler';
import { startServeSim } from '../../../src/sim/server/serve-sim';
import { VirtualTimer } from '../../../src/sim/server/sim-timer';
import { VirtualServer } from '../../../src/sim/virtual/virtual-server-model';

/** One sequence at a time: every other request waits, so the queue's order is the order of service. */
const ONE_AT_A_TIME: BatchProfile = { ...QWEN3_8B_H100_VLLM, name: 'one-at-a-time', maxRunning: 1 };

describe('priority scheduling (vLLM --scheduling-policy priority)', () => {
  it('serves the waiting queue by priority, lower first, first come first served within one priority', () => {
    const timer = new VirtualTimer();
    const sched = new BatchScheduler(ONE_AT_A_TIME, timer, createRng('p'));
    const done: string[] = [];
    const submit = (name: string, priority?: number) =>
      sched.submit({ promptTokens: 100, outputTokens: 20, ...(priority !== undefined ? { priority } : {}) }, { onDone: () => done.push(name) });
    submit('first', 5);
    // The first is admitted before the others arrive (50 ms overhead): it runs, the rest wait.
    timer.run(60);
    submit('low-a', 3);
    submit('none');
    submit('high', -2);
    submit('low-b', 3);
    submit('mid', 1);
    const load = sched.load();
    expect(load.byPriority).toEqual([
      { priority: -2, running: 0, waiting: 1 }, { priority: 0, running: 0, waiting: 1 }, { priority: 1, running: 0, waiting: 1 },
      { priority: 3, running: 0, waiting: 2 }, { priority: 5, running: 1, waiting: 0 },
    ]);
    timer.run();
    expect(done).toEqual(['first', 'high', 'none', 'mid', 'low-a', 'low-b']);
  });

  it('preempts the lowest priority first when the KV cache runs out', () => {
    // Room for two 400-token sequences, not for both to grow to 600: one is preempted.
    const tight: BatchProfile = { ...QWEN3_8B_H100_VLLM, name: 'tight', kvCacheTokens: 1024 };
    const order = (pa: number, pb: number) => {
      const timer = new VirtualTimer();
      const sched = new BatchScheduler(tight, timer, createRng('kv'));
      const done: string[] = [];
      sched.submit({ promptTokens: 300, outputTokens: 300, priority: pa }, { onDone: () => done.push('a') });
      sched.submit({ promptTokens: 300, outputTokens: 300, priority: pb }, { onDone: () => done.push('b') });
      timer.run();
      return { done, preemptions: sched.kvCache().preemptions };
    };
    const aFirst = order(0, 1);
    const bFirst = order(1, 0);
    expect(aFirst.preemptions).toBeGreaterThan(0);
    expect(aFirst.done).toEqual(['a', 'b']);
    expect(bFirst.done).toEqual(['b', 'a']);
  });

  it('two runs sharing one virtual server: the one at the higher priority takes less virtual time', async () => {
    const model: LanguageModel = {
      name: 'fake',
      complete: async (req: CompletionRequest): Promise<Completion> => ({ text: 'x', usage: { promptTokens: 300, completionTokens: 200 }, timing: { ttftMs: 0, totalMs: 0 }, model: req.stage }),
      embed: async (texts) => texts.map(() => new Float32Array([1])),
    };
    const race = async (priorityOfA: number, priorityOfB: number) => {
      const server = new VirtualServer({ profile: ONE_AT_A_TIME, seed: 1 });
      const runs = { a: server.join(model, 'a', () => priorityOfA), b: server.join(model, 'b', () => priorityOfB) };
      // Each run: 8 rounds of three calls at once (a team of three), each round after the last.
      const run = async (name: 'a' | 'b') => {
        for (let i = 0; i < 8; i++) {
          await Promise.all([0, 1, 2].map((m) => runs[name].complete({ messages: [{ role: 'user', content: `${name} ${i} ${m}` }], stage: 'solve', seedKey: `${name}/${i}/${m}` })));
        }
        return runs[name].stats().virtualSeconds;
      };
      const [a, b] = await Promise.all([run('a'), run('b')]);
      return { a, b };
    };
    const even = await race(0, 0);
    const aFirst = await race(0, 1);
    const bFirst = await race(1, 0);
    // At one priority, requests made at one instant go in run-key order: a's first.
    expect(even.a).toBeLessThan(even.b);
    expect(aFirst.a).toBeLessThan(aFirst.b);
    // A higher priority (a lower number) turns that around.
    expect(bFirst.b).toBeLessThan(bFirst.a);
    expect(bFirst.b).toBeLessThan(even.b);
    // Nothing else changed: the same work, one server, so the sweep takes as long either way.
    expect(Math.max(bFirst.a, bFirst.b)).toBeCloseTo(Math.max(even.a, even.b), 0);
  });

  it('serve-sim reads the body field the OpenAI client sends, orders by it, shows it in /metrics, and refuses it under fcfs', async () => {
    const seen: unknown[] = [];
    const sim = await startServeSim({
      port: 0, timeScale: 10, profile: ONE_AT_A_TIME, schedulingPolicy: 'priority',
      onRequest: (r) => { if (r.path === '/v1/chat/completions') seen.push((JSON.parse(r.body) as { priority?: unknown }).priority); },
    });
    const fcfs = await startServeSim({ port: 0, timeScale: 10 });
    try {
      const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8 }] }, { env: {} });
      const done: string[] = [];
      const ask = (name: string, priority: number) =>
        pool.complete({ messages: [{ role: 'user', content: `${name}: explain the whole mechanism at length` }], stage: 'solve', seedKey: name, priority })
          .then(() => { done.push(name); });
      const first = ask('first', 0);
      // The first holds the one sequence slot; the next two queue behind it.
      while (sim.scheduler.load().running === 0) await new Promise((r) => setTimeout(r, 5));
      const later = [ask('low', 7), ask('high', 2)];
      while (sim.scheduler.load().waiting < 2) await new Promise((r) => setTimeout(r, 5));
      const metrics = await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
      expect(metrics).toMatch(/evochamber_sim:num_requests_running_by_priority\{priority="0",model_name="sim"\} 1/);
      expect(metrics).toMatch(/evochamber_sim:num_requests_waiting_by_priority\{priority="2",model_name="sim"\} 1/);
      expect(metrics).toMatch(/evochamber_sim:num_requests_waiting_by_priority\{priority="7",model_name="sim"\} 1/);
      await Promise.all([first, ...later]);
      expect(done).toEqual(['first', 'high', 'low']);
      expect(seen.sort()).toEqual([0, 2, 7]);
      await pool.close();
      const refused = await fetch(`${fcfs.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], priority: 3 }) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('Got priority 3 but Priority scheduling is not enabled.');
    } finally {
      await sim.close();
      await fcfs.close();
    }
  }, 30_000);
});
