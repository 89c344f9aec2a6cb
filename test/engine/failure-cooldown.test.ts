import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { refusalCause, StructureCooldown } from '../../src/team/structure-cooldown';
import { outDir, quickstartOver } from '../llm/openai/e2e-helpers';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';
import { DEBATE_REVISION, startRefusingProxy, type RefusingProxy } from '../fixtures/refusing-proxy';

/**
 * A server with a short context: every debate revision (the prompt that carries the other members'
 * answers) is refused with a 400 for context length, as vLLM refuses an over-long prompt; every
 * other call answers.
 */
function shortContextServer(): Promise<{ url: string; server: Server; refused: () => number }> {
  let refused = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.endsWith('/embeddings')) { res.writeHead(404); res.end('{}'); return; }
      if (body.includes('## Other answers')) {
        refused++;
        res.writeHead(400);
        res.end(JSON.stringify({ error: { message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 } }));
        return;
      }
      res.writeHead(200);
      res.end(JSON.stringify({
        id: 'c', object: 'chat.completion', created: 0, model: 'short',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'The answer is \\boxed{4}.' } }],
        usage: { prompt_tokens: 20, completion_tokens: 8 },
      }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    resolve({ url: `http://127.0.0.1:${port}/v1`, server, refused: () => refused });
  }));
}

describe('failures that repeat', () => {
  let srv: Awaited<ReturnType<typeof shortContextServer>>;
  beforeAll(async () => { srv = await shortContextServer(); });
  afterAll(async () => { await new Promise((r) => srv.server.close(r)); });

  it('sets debate aside on a niche after two refused tasks in a row; later tasks there run another structure, and no failure is scored', async () => {
    const dir = outDir();
    const scenario = withOverrides(quickstartOver({
      endpoints: [{ baseURL: srv.url, model: 'short', maxConcurrency: 4 }], simSideChannel: false, retries: 1,
    }), { team: { cooldown: { after: 2, tasks: 1000 } } } as never);
    const { summary } = await runScenario(scenario, { patch: { 'stream.tasks': 24, 'engine.inFlight': 1, variant: 'fixed-debate' }, report: false, outDir: dir });
    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const asides = events.filter((e) => e.type === 'structure.set-aside');
    expect(asides.length).toBeGreaterThan(0);
    for (const a of asides) expect(a.cause).toBe('solve HTTP 400');
    // Per niche: the tasks before the set-aside ran debate and failed; the ones after ran another structure and were graded.
    const setAt = new Map(asides.map((a) => [a.niche as string, a.taskId as string]));
    const chosen = events.filter((e) => e.type === 'structure.chosen');
    const index = (id: string) => events.findIndex((e) => e.type === 'structure.chosen' && e.taskId === id);
    let after = 0;
    for (const c of chosen) {
      const at = setAt.get(c.niche as string);
      if (at === undefined || index(c.taskId as string) <= index(at)) continue;
      expect(c.structure).not.toBe('debate');
      expect(String(c.why)).toMatch(/set aside/);
      after++;
    }
    expect(after).toBeGreaterThan(0);
    expect(summary.setAside?.length).toBe(asides.length);
    // Refused tasks are failures, never wrong answers; every graded task here answered 4 somewhere.
    expect(summary.failures).toBeGreaterThanOrEqual(2 * asides.length);
    expect(summary.failuresByStage.solve).toBe(summary.failures);
    expect(summary.graded + summary.failures).toBe(24);
    expect(srv.refused()).toBeGreaterThan(0);
  });
});

describe('a structure the server refuses with 503', () => {
  let sim: ServeSim;
  let proxy: RefusingProxy;
  beforeAll(async () => {
    sim = await startServeSim({ port: 0, timeScale: 3000 });
    proxy = await startRefusingProxy(sim.url, { refuse: DEBATE_REVISION, status: 503 });
  });
  afterAll(async () => { await proxy.close(); await sim.close(); });

  it('is set aside after its retries run out on two tasks; from then on each refused call is sent once, never retried', async () => {
    const dir = outDir();
    const retries = 2;
    // A threshold no run here reaches: every attempt of a call before the set-aside is counted, none lost to an outage pause.
    const scenario = withOverrides(quickstartOver({
      endpoints: [{ baseURL: proxy.url, model: 'sim', maxConcurrency: 4 }], retries, health: { failureThreshold: 1000, cooldownMs: 200 },
    }), { team: { cooldown: { after: 2, tasks: 1000 } } } as never);
    const tasks = 24;
    const { summary } = await runScenario(scenario, { patch: { 'stream.tasks': tasks, 'engine.inFlight': 1, variant: 'fixed-debate' }, report: false, outDir: dir });
    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const asides = events.filter((e) => e.type === 'structure.set-aside');
    expect(asides.length).toBeGreaterThan(0);
    for (const a of asides) expect(a.cause).toBe('solve HTTP 503');
    // Tasks start in stream order, one at a time: those up to the first set-aside met the refusal unknown, the rest knew it.
    const started = events.filter((e) => e.type === 'task.started').map((e) => e.taskId as string);
    const firstAside = started.indexOf(asides[0]!.taskId as string);
    const attempts = new Map<string, { task: string; n: number }>();
    for (const r of proxy.refusals) attempts.set(r.seedKey, { task: r.task, n: (attempts.get(r.seedKey)?.n ?? 0) + 1 });
    let before = 0;
    let after = 0;
    for (const { task, n } of attempts.values()) {
      if (started.indexOf(task) <= firstAside) { expect(n).toBe(retries + 1); before++; } else { expect(n).toBe(1); after++; }
    }
    expect(before).toBeGreaterThan(0);
    // Debate still ran on niches where it was not set aside yet, and was refused there once per call.
    expect(after).toBeGreaterThan(0);
    // Every task is accounted for; a refused one is a failure, never a wrong answer.
    expect(summary.graded + summary.failures).toBe(tasks);
    expect(summary.failuresByStage.solve).toBe(summary.failures);
    expect(summary.failures).toBeGreaterThanOrEqual(2 * asides.length);
    expect(events.filter((e) => e.type === 'task.done')).toHaveLength(tasks);
  });
});

describe('StructureCooldown', () => {
  it('needs the same cause on consecutive tasks of one niche and structure; a success or another cause restarts the count', () => {
    const c = new StructureCooldown({ after: 2, tasks: 5 });
    const t = (index: number, cause: string | null, structure = 'debate', niche = 'n') => c.observe({ niche, index, structure, cause });
    expect(t(0, 'solve HTTP 400')).toBeNull();
    expect(t(1, null)).toBeNull();
    expect(t(2, 'solve HTTP 400')).toBeNull();
    expect(t(3, 'solve HTTP 413')).toBeNull();
    expect(t(4, 'solve HTTP 400', 'debate', 'other')).toBeNull();
    const aside = t(5, 'solve HTTP 413');
    expect(aside).toEqual({ niche: 'n', structure: 'debate', cause: 'solve HTTP 413', task: 5, untilTask: 11 });
    expect([...c.blocked('n', 6)]).toEqual(['debate']);
    expect([...c.blocked('other', 6)]).toEqual([]);
    expect([...c.blocked('n', 11)]).toEqual([]);
    expect(new StructureCooldown({ after: 1, tasks: 0 }).observe({ niche: 'n', index: 0, structure: 'debate', cause: 'solve HTTP 400' })).toBeNull();
  });

  it('knows a set-aside structure\'s refusals on every niche, until it is offered again', () => {
    const c = new StructureCooldown({ after: 1, tasks: 3 });
    expect(c.refusals('debate', 0)).toEqual([]);
    // A 503 on debate's revisions only, its first round answered: evidence against debate, not the endpoint.
    const attempts = [...Array(3).fill({ step: 'solve' }), ...Array(4).fill({ step: 'revise-1', status: 503 })];
    c.observe({ niche: 'n', index: 0, structure: 'debate', cause: 'solve HTTP 503', attempts });
    c.observe({ niche: 'm', index: 1, structure: 'debate', cause: 'solve HTTP 400' });
    expect(c.refusals('debate', 2)).toEqual([400, 503]);
    expect(c.refusals('voting', 2)).toEqual([]);
    expect(c.refusals('debate', 4)).toEqual([400]);
    expect(c.refusals('debate', 5)).toEqual([]);
  });

  it('counts a 5xx a call\'s retries ran out on as a refusal, as it does 400, 404, 413 and 422; 429 and a failure without a status are not', () => {
    expect(refusalCause('solve', [{}, { status: 503 }])).toBe('solve HTTP 503');
    expect(refusalCause('solve', [{ status: 500 }])).toBe('solve HTTP 500');
    expect(refusalCause('solve', [{ status: 413 }])).toBe('solve HTTP 413');
    expect(refusalCause('solve', [{ status: 429 }, {}])).toBeNull();
  });
});
