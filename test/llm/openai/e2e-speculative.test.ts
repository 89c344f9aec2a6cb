/**
 * Speculative completion over HTTP: a voting run against serve-sim with the H100 latency profile,
 * slowed enough (time scale 20) that members' answers arrive tens of milliseconds apart. Once two
 * members agree, the third member's request is cancelled: serve-sim counts it under vLLM's
 * `finished_reason="abort"` instead of as finished, and the run's summary counts it as cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { createMathGrader } from '../../../src/tasks/graders';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';
import { outDir, quickstartOver, readEvents } from './e2e-helpers';
import { majorityDecided } from '../../../src/team/operators/vote';

let sim: ServeSim;
let chats = 0;
beforeAll(async () => {
  sim = await startServeSim({ port: 0, profile: 'qwen3-8b-h100-vllm', timeScale: 20, seed: 3, onRequest: (r) => { if (r.path.endsWith('/chat/completions')) chats++; } });
});
afterAll(async () => { await sim.close(); });

describe('speculative voting against serve-sim', () => {
  it('cancels the member still answering once two agree: serve-sim counts it aborted, the summary counts it cancelled', async () => {
    const dir = outDir();
    const scenario = withOverrides(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 32 }] }), {
      variant: 'fixed-voting', stream: { niches: [{ id: 'arithmetic' }, { id: 'algebra' }] },
    } as never);
    const { summary } = await runScenario(scenario, { patch: { 'stream.tasks': 6 }, report: false, outDir: dir });
    expect(summary.failures).toBe(0);
    const spec = summary.speculative;

    // serve-sim saw requests cut before they finished, and says so under vLLM's name.
    expect(sim.metrics.aborted).toBeGreaterThan(0);
    const text = await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
    const abortLine = text.split('\n').find((l) => l.startsWith('vllm:request_success_total{finished_reason="abort"'));
    expect(Number(abortLine?.split(' ').pop())).toBe(sim.metrics.aborted);

    // Every chat request the server received is finished or aborted there, and on the client a
    // finished call or a cancellation (a request the server had just finished may still be cut
    // on the client, so the client counts at least as many cancellations as the server aborts).
    expect(sim.metrics.requests + sim.metrics.aborted).toBe(chats);
    expect(summary.tokens.total.calls + spec.cancelled).toBe(chats);
    expect(spec.cancelled).toBeGreaterThanOrEqual(sim.metrics.aborted);
    expect(summary.tokens.total.aborted).toBe(spec.cancelled);
    // An HTTP server does not say how long the answer would have been: every saving is an estimate,
    // net of what the pool estimates the request had generated (from its duration).
    expect(spec.estimated).toBe(spec.cancelled);
    expect(Number.isInteger(spec.tokensSaved) && spec.tokensSaved >= 0).toBe(true);
    const generated = summary.tokens.total.abortedCompletionTokens!;
    expect(generated).toBeGreaterThan(0);
    // Nothing was retried or held against the endpoint.
    const ep = Object.values(summary.endpoints!)[0]!;
    expect(ep.failures).toBe(0);
    expect(ep.retries).toBe(0);

    // Each cancelled member's teammates had already decided the vote; the cancelled one did not
    // answer, and it is not an error.
    const attempts = readEvents(dir).filter((e) => e.type === 'attempt' && e.step === 'solve');
    const cancelled = attempts.filter((e) => e.cancelled === true);
    expect(cancelled.length).toBe(spec.cancelled);
    for (const c of cancelled) {
      expect(c.extracted).toBeNull();
      expect(c.error).toBeUndefined();
      const others = attempts.filter((e) => e.taskId === c.taskId && e !== c);
      expect(others).toHaveLength(2);
      expect(others.every((e) => e.cancelled === undefined)).toBe(true);
      // The answers that came back decided the vote whatever the cancelled one would have said
      // (usually two agreeing members; a tie the leader's answer wins under vote's rule also counts).
      const math = createMathGrader();
      const byMember = attempts.filter((e) => e.taskId === c.taskId).map((e) => (e === c ? undefined : (e.extracted as string | null)));
      expect(majorityDecided(byMember, (a, b) => math.equivalent(a, b))).toBe(true);
    }
  }, 120_000);
});
