import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';
import { outDir, quickstartOver, readEvents } from '../../llm/openai/e2e-helpers';

describe('serve-sim restarted in the middle of a run', () => {
  it('still knows every task, since each request carries its own (no "I cannot tell what is being asked")', async () => {
    let sim: ServeSim = await startServeSim({ port: 0, timeScale: 300 });
    const port = sim.port;
    let chats = 0;
    let restarted: ServeSim | undefined;
    const first = sim;
    // Restart once, on the 20th chat request: the new process has no memory of the old one.
    const restart = async () => {
      await first.close();
      restarted = await startServeSim({ port, timeScale: 300 });
      sim = restarted;
    };
    first.server.on('request', (req) => { if (req.url?.endsWith('/chat/completions') && ++chats === 20) void restart(); });
    try {
      // QA niches: no sandbox start-up in the way of what is measured.
      const scenario = withOverrides(quickstartOver({ endpoints: [{ baseURL: first.url, model: 'sim', maxConcurrency: 4 }], simSideChannel: true }),
        { stream: { niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } } as never);
      const dir = outDir();
      const { summary } = await runScenario(scenario, { patch: { 'stream.tasks': 8, 'engine.inFlight': 4 }, report: false, outDir: dir });
      expect(restarted).toBeDefined();
      expect(restarted!.metrics.requests).toBeGreaterThan(0);
      expect(summary.failures).toBe(0);
      const attempts = readEvents(dir).filter((e) => e.type === 'attempt');
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.filter((e) => String(e.text).includes('I cannot tell what is being asked'))).toEqual([]);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('serves Prometheus metrics under vLLM names', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 300 });
    try {
      await runScenario(withOverrides(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 4 }] }), { stream: { niches: [{ id: 'people-qa' }] } } as never), { patch: { 'stream.tasks': 2 }, report: false, outDir: outDir() });
      const text = await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
      const value = (name: string) => text.split('\n').filter((l) => l.startsWith(name)).reduce((a, l) => a + Number(l.split(' ').pop()), 0);
      for (const n of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:prompt_tokens_total', 'vllm:generation_tokens_total', 'vllm:request_success_total']) {
        expect(text).toContain(`# TYPE ${n} `);
      }
      // Every request is counted once, answered in full or aborted by its client (finished_reason="abort").
      expect(value('vllm:request_success_total')).toBe(sim.metrics.requests + sim.metrics.aborted);
      expect(text).toContain('vllm:request_success_total{finished_reason="abort"');
      expect(sim.metrics.requests).toBeGreaterThan(0);
      expect(value('vllm:generation_tokens_total')).toBeGreaterThan(0);
      expect(value('vllm:num_requests_running')).toBe(0);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
