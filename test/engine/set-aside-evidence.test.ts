import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { StructureCooldown } from '../../src/team/structure-cooldown';
import { outDir, quickstartOver, readEvents } from '../llm/openai/e2e-helpers';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';
import { DEBATE_REVISION, startRefusingProxy, type RefusingProxy } from '../fixtures/refusing-proxy';

/** A debate task: three first-round calls, three revisions; `failed` says which steps met a 503. */
const debateCalls = (failSolve: boolean[], failRevise: boolean[]) => [
  ...failSolve.map((f) => ({ step: 'solve', ...(f ? { status: 503 } : {}) })),
  ...failRevise.map((f) => ({ step: 'revise-1', ...(f ? { status: 503 } : {}) })),
];
const votingCalls = (fail: boolean[]) => fail.map((f) => ({ step: 'solve', ...(f ? { status: 503 } : {}) }));

describe('a 5xx sets a structure aside only on evidence against the structure', () => {
  it('a step that fails far more often than the endpoint\'s other calls (a refused structure) is set aside', () => {
    const c = new StructureCooldown({ after: 2, tasks: 10 });
    c.observe({ niche: 'm', index: 0, structure: 'voting', cause: null, attempts: votingCalls([false, false, false]) });
    expect(c.observe({ niche: 'n', index: 1, structure: 'debate', cause: 'solve HTTP 503', attempts: debateCalls([false, false, false], [true, true, true]) })).toBeNull();
    const aside = c.observe({ niche: 'n', index: 2, structure: 'debate', cause: 'solve HTTP 503', attempts: debateCalls([false, false, false], [true, true, true]) });
    expect(aside?.structure).toBe('debate');
  });

  it('5xx spread over every structure\'s calls (a flaky server) set nothing aside, however long the streak', () => {
    const c = new StructureCooldown({ after: 2, tasks: 10 });
    // Every call fails one time in three, whatever the structure or step: the endpoint's health.
    const f = (i: number) => i % 3 === 0;
    for (let i = 0; i < 30; i++) {
      const k = i * 7;
      const attempts = i % 2 === 0 ? debateCalls([f(k), f(k + 1), f(k + 2)], [f(k + 3), f(k + 4), f(k + 5)]) : votingCalls([f(k), f(k + 1), f(k + 2)]);
      const failed = attempts.some((a) => a.status !== undefined);
      expect(c.observe({ niche: 'n', index: i, structure: i % 2 === 0 ? 'debate' : 'voting', cause: failed ? 'solve HTTP 503' : null, attempts })).toBeNull();
    }
  });

  it('a 400 names the request: it sets the structure aside by itself, whatever the endpoint\'s health', () => {
    const c = new StructureCooldown({ after: 2, tasks: 10 });
    const attempts = debateCalls([true, true, true], [true, true, true]).map((a) => ({ ...a, status: 400 }));
    c.observe({ niche: 'n', index: 0, structure: 'debate', cause: 'solve HTTP 400', attempts });
    expect(c.observe({ niche: 'n', index: 1, structure: 'debate', cause: 'solve HTTP 400', attempts })?.cause).toBe('solve HTTP 400');
  });
});

describe('against real servers', () => {
  let flaky: ServeSim;
  let clean: ServeSim;
  let proxy: RefusingProxy;
  beforeAll(async () => {
    flaky = await startServeSim({ port: 0, timeScale: 3000, faults: 'error=0.3' });
    clean = await startServeSim({ port: 0, timeScale: 3000 });
    proxy = await startRefusingProxy(clean.url, { refuse: DEBATE_REVISION, status: 503 });
  });
  afterAll(async () => { await proxy.close(); await flaky.close(); await clean.close(); });

  const run = async (url: string) => {
    const dir = outDir();
    const scenario = withOverrides(quickstartOver({
      endpoints: [{ baseURL: url, model: 'sim', maxConcurrency: 8 }], retries: 0, health: { failureThreshold: 100_000, cooldownMs: 200 },
    }), {} as never);
    const { summary } = await runScenario(scenario, { patch: { 'stream.tasks': 60, 'engine.inFlight': 8 }, report: false, outDir: dir });
    return { summary, asides: readEvents(dir).filter((e) => e.type === 'structure.set-aside') };
  };

  it('serve-sim --faults error=0.3 with --retries 0 sets no structure aside; tasks fail, none is set aside', async () => {
    const { summary, asides } = await run(flaky.url);
    expect(summary.failures).toBeGreaterThan(0);
    expect(asides).toHaveLength(0);
    expect(summary.setAside).toBeUndefined();
  }, 60_000);

  it('a server that refuses debate\'s revisions with 503 still has debate set aside', async () => {
    const { asides } = await run(proxy.url);
    expect(asides.length).toBeGreaterThan(0);
    for (const a of asides) { expect(a.structure).toBe('debate'); expect(a.cause).toBe('solve HTTP 503'); }
  }, 60_000);
});
