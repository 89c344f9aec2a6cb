import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { systemClock } from '../../../src/core/clock';
import { formatSummary } from '../../../src/cli/format-summary';
import { buildReportData } from '../../../src/report/build-report-data';
import { costSection } from '../../../src/report/charts/cost-charts';
import { runSummaryMarkdown } from '../../../src/report/summary-md';
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { JournaledModel } from '../../../src/llm/request-journal';
import { startServeSim, type RecordedRequest } from '../../../src/sim/server/serve-sim';
import { outDir, quickstartOver, readEvents } from './e2e-helpers';

/**
 * Replies cut off by the token limit, over HTTP against a real serve-sim whose `truncate` fault makes
 * a reply think until `max_tokens` and never answer (finish_reason length), under each setting of
 * `model.onTruncated`.
 */
describe('truncated replies over HTTP', () => {
  it('carries finish_reason and the budget into the completion, streamed or not, and the journal replays them', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 1000, seed: 3, faults: 'truncate=1' });
    try {
      for (const stream of [false, true]) {
        const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: sim.url, model: 'sim' }], stream, maxTokens: 48, retries: 0 }, { env: {} });
        const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-trunc-')), 'journal.jsonl');
        const journal = new JournaledModel(pool, { target: file, fsync: false });
        const req = { messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }], stage: 'solve' as const, taskId: 't', seedKey: 'k' };
        const out = await journal.complete(req);
        journal.close();
        expect(out).toMatchObject({ text: '', finishReason: 'length', maxTokens: 48 });
        expect(out.usage.completionTokens).toBe(48);
        expect(out.reasoning?.length).toBeGreaterThan(0);
        // A resumed run is answered from the journal: the same completion, finish reason and budget included.
        const replay = new JournaledModel(pool, { source: file, strict: true });
        expect(await replay.complete(req)).toEqual(out);
        await pool.close();
      }
    } finally {
      await sim.close();
    }
  });

  /** A quickstart run over serve-sim with a 30 % truncate fault, under one setting; the request bodies the server saw. */
  async function runWith(onTruncated: 'retry' | 'fail' | 'grade') {
    const bodies: Array<Record<string, unknown>> = [];
    const onRequest = (r: RecordedRequest) => { if (r.path.endsWith('/chat/completions')) bodies.push(JSON.parse(r.body) as Record<string, unknown>); };
    const sim = await startServeSim({ port: 0, timeScale: 1000, seed: 7, faults: 'truncate=0.3', onRequest });
    try {
      const dir = outDir();
      // One task in flight and no speculative completion: the order of requests, and so the fault draws, is fixed.
      const { summary } = await runScenario(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 4 }], maxTokens: 2000, onTruncated }),
        { patch: { 'stream.tasks': 8, 'engine.inFlight': 1, 'structures.speculative': false }, report: false, outDir: dir });
      return { summary, bodies, events: readEvents(dir), dir };
    } finally {
      await sim.close();
    }
  }

  it('grade: counts the cut-off replies per stage and grades them; nothing fails, nothing is asked twice', async () => {
    const { summary, bodies, events } = await runWith('grade');
    expect(summary.tokens.solve!.truncated).toBeGreaterThan(0);
    // Each task's events carry its own cut-off replies; they add up to the summary's.
    const perTask = events.filter((e) => e.type === 'task.done').map((e) => (e.tokens as Record<string, { truncated?: number }> | undefined)?.solve?.truncated ?? 0);
    expect(perTask.reduce((a, n) => a + n, 0)).toBe(summary.tokens.solve!.truncated);
    expect(summary.tokens.total.truncated).toBe(Object.entries(summary.tokens).filter(([s]) => s !== 'total').reduce((a, [, u]) => a + (u.truncated ?? 0), 0));
    expect(summary.failures).toBe(0);
    expect(summary.graded).toBe(8);
    expect(bodies.every((b) => b.max_tokens === 2000)).toBe(true);
    expect(bodies.length).toBe(summary.tokens.total.calls);
  });

  it('the printed summary, summary.md and the report\'s cost section say how many replies were cut off, per stage', async () => {
    const { summary, dir } = await runWith('grade');
    const solve = summary.tokens.solve!.truncated!;
    expect(formatSummary(summary)).toMatch(new RegExp(`TRUNCATED: ${summary.tokens.total.truncated} replies cut off by the token limit with no answer \\(.*solve ${solve}`));
    const data = await buildReportData(dir, { clock: systemClock, outDir: path.join(dir, 'report') });
    expect(data.cost.stages.find((s) => s.stage === 'solve')!.truncated).toBe(solve);
    const md = runSummaryMarkdown(data);
    expect(md).toMatch(/\| stage +\| calls +\| prompt +\| completion +\| truncated \|/);
    expect(md).toMatch(new RegExp(`\\| solve +\\| ${summary.tokens.solve!.calls} +\\|[^\\n]*\\| ${solve} +\\|`));
    expect(costSection(data).notes.join(' ')).toMatch(/cut off by the token limit with no answer \(.*solve \d+/);
  });

  it('fail: a task whose answer was cut off is recorded as failed in solve, with the cause, never graded', async () => {
    const { summary, events } = await runWith('fail');
    expect(summary.tokens.solve!.truncated).toBeGreaterThan(0);
    expect(summary.failuresByStage.solve).toBeGreaterThan(0);
    expect(summary.graded + summary.failures).toBe(8);
    const failed = events.filter((e) => e.type === 'task.failed');
    expect(failed.length).toBe(summary.failures);
    expect(failed.some((e) => /cut off by the token limit \(max_tokens 2000\) with no answer/.test(String(e.message ?? e.error ?? JSON.stringify(e))))).toBe(true);
  });

  it('retry: asks again with twice the budget; each retry is one more request, the cut-off replies are counted', async () => {
    const { summary, bodies } = await runWith('retry');
    const retries = bodies.filter((b) => b.max_tokens === 4000).length;
    expect(retries).toBeGreaterThan(0);
    expect(bodies.every((b) => b.max_tokens === 2000 || b.max_tokens === 4000)).toBe(true);
    // Every cut-off reply (but those cut off again at 4000, which are graded) was retried once.
    expect(summary.tokens.total.truncated).toBeGreaterThanOrEqual(retries);
    expect(bodies.length).toBe(summary.tokens.total.calls + retries);
    expect(summary.failures).toBe(0);
    // The side channel goes with every request, retries included: serve-sim answers as the simulator does.
    expect(summary.accuracy).toBeGreaterThan(0.1);
  });
});
