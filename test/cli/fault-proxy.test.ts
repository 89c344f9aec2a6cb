import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';
import { DEBATE_REVISION, startRefusingProxy, type RefusingProxy } from '../fixtures/refusing-proxy';

// A real fault proxy in front of a real serve-sim: every debate revision round (the prompt with
// "## Other answers") gets a 503, everything else passes through. Debate tasks cannot finish, so
// they must be recorded as failed — not as wrong answers — and teach LeadLearn nothing.
let sim: ServeSim;
let proxy: RefusingProxy;

beforeAll(async () => {
  sim = await startServeSim({ port: 0, timeScale: 1000 });
  proxy = await startRefusingProxy(sim.url, { refuse: DEBATE_REVISION, status: 503, message: 'debate rounds are down' });
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

describe('an outage of one structure behind a fault proxy', () => {
  it('records its tasks as failed, not wrong; LeadLearn learns nothing from them; the CLI exits 3', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-fault-'));
    const quick = JSON.parse(readFileSync('scenarios/quickstart.json', 'utf8'));
    const scenario = {
      ...quick, name: 'fault-proxy',
      model: {
        backend: 'openai', endpoints: [{ baseURL: proxy.url, model: 'sim', maxConcurrency: 8 }],
        retries: 1, backoff: { baseMs: 1, maxMs: 5 }, health: { failureThreshold: 1000, cooldownMs: 50 }, timeoutMs: 20_000,
      },
    };
    const file = path.join(dir, 'fault-proxy.json');
    writeFileSync(file, JSON.stringify(scenario));
    // The scenario references built-in niches only, so it runs from any directory.
    const out = path.join(dir, 'run');
    const write = process.stdout.write;
    let printed = '';
    process.stdout.write = ((s: string) => { printed += s; return true; }) as typeof process.stdout.write;
    let code: number;
    try {
      code = await main(['run', file, '--tasks', '40', '--json', '--quiet', '--no-report', '--out', out]);
    } finally {
      process.stdout.write = write;
    }
    const summary = JSON.parse(printed.trim().split('\n').at(-1)!);
    const events = readFileSync(path.join(out, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const structureOf = new Map(events.filter((e) => e.type === 'structure.chosen').map((e) => [e.taskId, e.structure]));
    const failed = new Set(events.filter((e) => e.type === 'task.failed').map((e) => e.taskId));
    const graded = new Set(events.filter((e) => e.type === 'task.graded').map((e) => e.taskId));

    expect(proxy.refused()).toBeGreaterThan(0);
    expect(failed.size).toBeGreaterThan(0);
    expect(code).toBe(3);
    // Only debate tasks that reached a revision round failed, each at the solve stage, and none was graded.
    expect([...failed].every((id) => structureOf.get(id) === 'debate' && !graded.has(id))).toBe(true);
    expect(events.filter((e) => e.type === 'task.failed').every((e) => e.stage === 'solve' && /503|debate rounds are down/.test(e.error))).toBe(true);
    expect(summary).toMatchObject({ tasks: 40, failures: failed.size, graded: 40 - failed.size });
    expect(summary.failuresByStage.solve).toBe(failed.size);
    // Nothing is learned from a failed task: no LeadLearn record (so debate's statistics are only
    // its graded tasks), no competence, synergy, lesson or insight.
    const learned = events.filter((e) => ['leadlearn.entry', 'competence.updated', 'synergy.updated', 'lesson.added', 'codream.session'].includes(e.type));
    expect(learned.some((e) => failed.has(e.taskId))).toBe(false);
    const debateEntries = events.filter((e) => e.type === 'leadlearn.entry' && e.structure === 'debate').map((e) => e.taskId);
    const gradedDebate = [...graded].filter((id) => structureOf.get(id) === 'debate');
    expect(debateEntries.sort()).toEqual(gradedDebate.sort());
    // Accuracy is over graded tasks only: the outage does not drag it towards 0.
    const rewards = events.filter((e) => e.type === 'task.graded').map((e) => e.reward as number);
    expect(summary.accuracy).toBeCloseTo(rewards.reduce((a, b) => a + b, 0) / rewards.length, 3);
  }, 120_000);
});
