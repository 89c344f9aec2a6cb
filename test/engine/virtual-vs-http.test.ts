import { describe, expect, it } from 'vitest';
import { IN_FLIGHT, TIME_SCALE, virtualAgainstHttp } from '../fixtures/virtual-vs-http';

// How close virtual time comes to the wall time of the same run against serve-sim is a timing
// figure: `npm run bench -- virtual-vs-http` prints it (0.98–1.00 on a quiet machine; a loaded
// one stretches the wall time). Here, what does not depend on the clock: the two runs ask the
// server for nearly the same work, so the comparison the bench makes is between like runs.
describe('virtual time against a real-time run on serve-sim', () => {
  it(`a virtual-time run and the same run over HTTP against serve-sim --time-scale ${TIME_SCALE} do nearly the same work (qwen3-8b-h100-vllm, ${IN_FLIGHT} tasks in flight)`, async () => {
    const { virtual, http, modelSeconds, ratio } = await virtualAgainstHttp();
    console.log(`virtual: ${virtual.virtualSeconds!.toFixed(1)} s; HTTP: ${(modelSeconds / TIME_SCALE).toFixed(2)} s wall × ${TIME_SCALE} = ${modelSeconds.toFixed(1)} s; ratio ${ratio.toFixed(3)} (a figure, not checked here)`);
    // Not identical: the HTTP backend moves <think> blocks out of the answer text, so later prompts
    // (and answers) drift a little from the in-process run's.
    expect(Math.abs(http.tokens.total.completionTokens / virtual.tokens.total.completionTokens - 1)).toBeLessThan(0.1);
    expect(http.tasks).toBe(virtual.tasks);
    expect(http.failures).toBe(0);
    expect(virtual.virtualSeconds).toBeGreaterThan(0);
  }, 60_000);
});
