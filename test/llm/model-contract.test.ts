/**
 * The `LanguageModel` contract (src/llm/model.ts), one set of checks run against every backend the
 * engine can be given: the in-process simulated model, and the OpenAI pool talking HTTP to a real
 * serve-sim (chat and embeddings over the wire). Both are built by `createModel`, as a run builds them.
 * A request's `signal` cancels it: before the call it rejects with CompletionAbortedError without
 * reaching the backend, after the answer it changes nothing, and on a backend with latency it cuts
 * the request on the wire; the accounting and journal wrappers count and record an abort, never as
 * an answer. The pool's own per-attempt timeout is covered in test/llm/openai/.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompletionAbortedError, isCompletionAborted, loadScenario, ModelRequestError, type CompletionRequest, type Completion, type LanguageModel, type NicheSpec, type Task } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { AccountingModel } from '../../src/llm/token-accounting';
import { buildReflectPrompt, buildSolvePrompt } from '../../src/individual/agent-prompts';
import { createModel } from '../../src/engine/run/model-stack';
import { JournaledModel } from '../../src/llm/request-journal';
import { OpenAIPoolModel } from '../../src/llm/openai/openai-pool-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';

const spec: NicheSpec = {
  id: 'algebra', domain: 'math', title: 'Algebra', description: 'solve for x', keywords: ['algebra', 'equations'],
  generator: 'algebra', difficulties: [1, 2, 3], answerFormat: 'Give the final answer as \\boxed{...}.',
};
/** Task i's answer is 10·i, so answers to different tasks can be told apart. */
const task = (i: number): Task => ({
  id: `contract-${i}`, index: i, niche: 'algebra', domain: 'math', difficulty: 2, block: 0,
  question: `Solve 3x + ${i} = ${i + 30 * i}.`, hidden: { answer: String(10 * i), distractors: [String(10 * i - 1), String(10 * i + 1), String(30 * i)] },
});
const persona = 'You are a careful problem solver.';
const TASKS = [task(1), task(2), task(3)];
const solve = (t: Task, seedKey: string, stage: CompletionRequest['stage'] = 'solve'): CompletionRequest => ({
  messages: buildSolvePrompt(persona, spec, t, { lessons: [], meta: [] }), stage, taskId: t.id, seedKey, agentId: 'agent-01',
});
const reflect = (t: Task, seedKey: string): CompletionRequest => ({
  messages: buildReflectPrompt({ persona, spec, task: t, experience: { lessons: [], meta: [] }, ownAnswer: '4', teamAnswer: '4', reward: 1, correct: true }),
  stage: 'reflect', taskId: t.id, seedKey,
});

/** A model under test, as `createModel` built it, and how to make one of the same kind whose backend is gone. */
interface Subject {
  readonly model: LanguageModel;
  readonly close: () => Promise<void>;
}
interface Backend {
  readonly name: string;
  /** Same seed, same backend: a second instance must answer like the first. */
  make(): Promise<Subject>;
  /** Start whatever the backend needs (a server); returns its teardown. */
  start(): Promise<() => Promise<void>>;
  /** A model of this kind that cannot reach its backend; absent when it has none to lose. */
  readonly unreachable?: () => Promise<Subject>;
  /**
   * What the backend's server saw, for backends behind one: chat requests received, and those
   * aborted by their client; `onChat` runs a callback as each chat request arrives (returns its removal).
   * Absent for a backend that answers at once, in process.
   */
  readonly wire?: { chats(): number; aborted(): number; onChat(f: () => void): () => void };
}

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));

function built(scenario: typeof quickstart): Subject {
  const created = createModel(scenario.scenario);
  // The engine tells the backend's observer (the simulator's side channel) about each task it starts.
  for (const t of TASKS) created.observer!.taskStarted(t, spec);
  return { model: created.model, close: () => created.close() };
}

const simBackend: Backend = {
  name: 'the in-process simulated model',
  start: async () => async () => {},
  make: async () => built(quickstart),
};

let server: ServeSim | undefined;
let chatsSeen = 0;
const openaiScenario = (baseURL: string) => withOverrides(quickstart, {
  model: {
    backend: 'openai', endpoints: [{ baseURL, model: 'sim', maxConcurrency: 8 }], embeddings: { model: 'sim' }, simSideChannel: true,
    timeoutMs: 20_000, retries: 2, backoff: { baseMs: 10, maxMs: 50 }, health: { failureThreshold: 5, cooldownMs: 200 },
  },
} as never);
/** A port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
const poolBackend: Backend = {
  name: 'the OpenAI pool over HTTP to serve-sim',
  start: async () => {
    server = await startServeSim({ port: 0, timeScale: 300, seed: quickstart.scenario.seed });
    server.server.on('request', (r) => { if (r.url?.endsWith('/chat/completions')) chatsSeen++; });
    return () => server!.close();
  },
  wire: {
    chats: () => chatsSeen,
    aborted: () => server!.metrics.aborted,
    onChat: (f) => {
      const l = (r: { url?: string }) => { if (r.url?.endsWith('/chat/completions')) f(); };
      server!.server.on('request', l);
      return () => { server!.server.off('request', l); };
    },
  },
  make: async () => built(openaiScenario(server!.url)),
  unreachable: async () => {
    const s = withOverrides(openaiScenario(`http://127.0.0.1:${await deadPort()}/v1`), { model: { retries: 0 } } as never);
    return built(s);
  },
};

const isCount = (n: number) => Number.isInteger(n) && n >= 0;
const boxed = (text: string) => /\\boxed\{([^}]+)\}/.exec(text)?.[1] ?? null;

/**
 * The contract on one answer: text, the model's own name, non-negative integer token counts and
 * ordered timings; and an answer to the request asked. A solve prompt gets its answer in the
 * format it asks for, about its own task: the backends here all run the simulated world, which
 * answers a task from that task (sampled over seed keys, its gold answer comes back), so a model
 * that ignores the request and answers from a script fails.
 */
async function checkAnswers(model: LanguageModel): Promise<void> {
  const c = await model.complete(solve(TASKS[0]!, 'shape/0'));
  expect(typeof c.text).toBe('string');
  expect(c.text.length).toBeGreaterThan(0);
  expect(typeof c.model).toBe('string');
  expect(c.model.length).toBeGreaterThan(0);
  expect(isCount(c.usage.promptTokens) && c.usage.promptTokens > 0).toBe(true);
  expect(isCount(c.usage.completionTokens) && c.usage.completionTokens > 0).toBe(true);
  expect(c.usage.unknown).toBeUndefined();
  expect(Number.isFinite(c.timing.ttftMs) && c.timing.ttftMs >= 0).toBe(true);
  expect(Number.isFinite(c.timing.totalMs) && c.timing.totalMs >= c.timing.ttftMs).toBe(true);
  if (c.reasoning !== undefined) expect(typeof c.reasoning).toBe('string');
  const answers = new Map<string, Set<string | null>>();
  for (const t of TASKS) {
    const got = new Set<string | null>();
    for (let k = 0; k < 12; k++) got.add(boxed((await model.complete(solve(t, `shape/${t.id}/${k}`))).text));
    answers.set(t.id, got);
  }
  // The simulated world also answers off-format now and then (a documented draw), so the format is asked of the first answer.
  expect(boxed(c.text)).not.toBeNull();
  for (const t of TASKS) expect([...answers.get(t.id)!], `answers to ${t.id}`).toContain(t.hidden.answer);
}

function contract(backend: Backend): void {
  describe(`LanguageModel contract: ${backend.name}`, () => {
    let stop: () => Promise<void>;
    let subject: Subject;
    beforeAll(async () => {
      stop = await backend.start();
      subject = await backend.make();
    });
    afterAll(async () => {
      await subject?.close();
      await stop?.();
    });

    it('answers with text, its own name, non-negative integer token counts and ordered timings, about the task asked', async () => {
      await checkAnswers(subject.model);
    });

    it('accounts usage exactly: per-stage calls and tokens are the sums of the replies, and the total their sum', async () => {
      const acc = new AccountingModel(subject.model);
      const reqs = [solve(TASKS[0]!, 'acc/0'), solve(TASKS[1]!, 'acc/1'), reflect(TASKS[0]!, 'acc/2'), solve(TASKS[2]!, 'acc/3', 'codream')];
      const replies: Completion[] = [];
      for (const r of reqs) replies.push(await acc.complete(r));
      const rep = acc.report();
      const sum = (stage: string, k: 'promptTokens' | 'completionTokens') =>
        replies.filter((_, i) => reqs[i]!.stage === stage).reduce((a, c) => a + c.usage[k], 0);
      expect(Object.keys(rep).sort()).toEqual(['codream', 'reflect', 'solve', 'total']);
      for (const stage of ['solve', 'reflect', 'codream']) {
        const u = rep[stage]!;
        expect(u.calls).toBe(reqs.filter((r) => r.stage === stage).length);
        expect(u.promptTokens).toBe(sum(stage, 'promptTokens'));
        expect(u.completionTokens).toBe(sum(stage, 'completionTokens'));
        expect([u.calls, u.promptTokens, u.completionTokens].every(isCount)).toBe(true);
      }
      expect(rep.total).toEqual({
        calls: 4,
        promptTokens: replies.reduce((a, c) => a + c.usage.promptTokens, 0),
        completionTokens: replies.reduce((a, c) => a + c.usage.completionTokens, 0),
      });
    });

    it('answers a request the same way every time, from a fresh instance too, whatever the stage', async () => {
      const req = solve(TASKS[1]!, 'det/0');
      const first = await subject.model.complete(req);
      const again = await subject.model.complete(req);
      expect(again.text).toBe(first.text);
      expect(again.usage).toEqual(first.usage);
      const other = await backend.make();
      try {
        expect((await other.model.complete(req)).text).toBe(first.text);
      } finally {
        await other.close();
      }
      // The stage routes and accounts; it never changes the answer.
      expect((await subject.model.complete({ ...req, stage: 'other' })).text).toBe(first.text);
      // The seed key is what samples: across many keys the answers are not all the same.
      const texts = new Set<string>();
      for (let i = 0; i < 12; i++) texts.add((await subject.model.complete(solve(TASKS[1]!, `det/key-${i}`))).text);
      expect(texts.size).toBeGreaterThan(1);
    });

    it('does not depend on the order concurrent requests complete in', async () => {
      const reqs = TASKS.flatMap((t, i) => [solve(t, `order/${i}/a`), solve(t, `order/${i}/b`)]);
      const together = await Promise.all(reqs.map((r) => subject.model.complete(r)));
      const reversed: string[] = [];
      for (const r of [...reqs].reverse()) reversed.unshift((await subject.model.complete(r)).text);
      expect(together.map((c) => c.text)).toEqual(reversed);
    });

    it('embeds each text into one L2-normalised vector of a shared dimension, the same text the same way', async () => {
      const texts = ['isolate x first', 'check the units', 'isolate x first', ''];
      const v = await subject.model.embed(texts);
      expect(v).toHaveLength(texts.length);
      const dim = v[0]!.length;
      expect(dim).toBeGreaterThan(0);
      for (const x of v.slice(0, 3)) {
        expect(x).toBeInstanceOf(Float32Array);
        expect(x.length).toBe(dim);
        expect(Math.hypot(...x)).toBeCloseTo(1, 4);
      }
      expect(v[3]!.length).toBe(dim);
      expect([...v[2]!]).toEqual([...v[0]!]);
      expect([...v[1]!]).not.toEqual([...v[0]!]);
      expect(await subject.model.embed([])).toEqual([]);
    });

    it('rejects with CompletionAbortedError, without reaching the backend, when the signal aborted before the call', async () => {
      const ctl = new AbortController();
      ctl.abort();
      const before = backend.wire?.chats();
      const err = await subject.model.complete({ ...solve(TASKS[0]!, 'abort/pre'), signal: ctl.signal }).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(CompletionAbortedError);
      expect(isCompletionAborted(err)).toBe(true);
      const e = err as CompletionAbortedError;
      expect(e.tokensGenerated).toBe(0);
      // Saved tokens are known only to a backend that knows the answer's length before making it.
      if (e.tokensSaved !== null) expect(isCount(e.tokensSaved) && e.tokensSaved > 0).toBe(true);
      if (backend.wire) expect(backend.wire.chats()).toBe(before);
      // The backend is none the worse: the same request without the signal is answered.
      expect((await subject.model.complete(solve(TASKS[0]!, 'abort/pre'))).text.length).toBeGreaterThan(0);
    });

    it('leaves an answer that already arrived standing when the signal aborts afterwards', async () => {
      const ctl = new AbortController();
      const req = solve(TASKS[1]!, 'abort/after');
      const c = await subject.model.complete({ ...req, signal: ctl.signal });
      ctl.abort();
      expect(c.text).toBe((await subject.model.complete(req)).text);
    });

    const wire = backend.wire;
    if (!wire) it('answers at once: an abort after the call is made leaves its answer standing', async () => {
      const ctl = new AbortController();
      const pending = subject.model.complete({ ...solve(TASKS[2]!, 'abort/during'), signal: ctl.signal });
      ctl.abort();
      expect((await pending).text.length).toBeGreaterThan(0);
    });
    if (wire) it('cuts a request in flight on the wire: the server counts it aborted, the endpoint stays healthy and nothing is retried', async () => {
      const ctl = new AbortController();
      const [chats, aborted] = [wire.chats(), wire.aborted()];
      const off = wire.onChat(() => ctl.abort());
      try {
        const err = await subject.model.complete({ ...solve(TASKS[2]!, 'abort/during'), signal: ctl.signal }).then(() => null, (e: unknown) => e);
        expect(isCompletionAborted(err)).toBe(true);
        // An HTTP server does not say how long the answer would have been: the saving is the pool's
        // estimate (the endpoint's mean answer length less what the request had generated), flagged so.
        const e = err as CompletionAbortedError;
        expect(e.estimated).toBe(true);
        if (e.tokensSaved !== null) expect(Number.isInteger(e.tokensSaved) && e.tokensSaved >= 0).toBe(true);
      } finally {
        off();
      }
      expect(wire.chats()).toBe(chats + 1);
      for (let i = 0; i < 200 && wire.aborted() === aborted; i++) await new Promise((r) => setTimeout(r, 10));
      expect(wire.aborted()).toBe(aborted + 1);
      if (subject.model instanceof OpenAIPoolModel) {
        const st = Object.values(subject.model.stats()).find((x) => x.requests > 0)!;
        expect(st.healthy).toBe(true);
        expect(st.aborted).toBe(1);
        expect(st.failures).toBe(0);
        expect(st.retries).toBe(0);
        expect(st.outstanding).toBe(0);
      }
      expect((await subject.model.complete(solve(TASKS[2]!, 'abort/during'))).text.length).toBeGreaterThan(0);
    });

    it('is counted apart by the accounting wrapper and recorded, not answered, by the journal, which replays the abort', async () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-contract-')), 'journal.jsonl');
      const journal = new JournaledModel(subject.model, { target: file, fsync: false });
      const acc = new AccountingModel(journal);
      const ctl = new AbortController();
      ctl.abort();
      const aborted = { ...solve(TASKS[0]!, 'abort/journal/0'), signal: ctl.signal };
      const answered = solve(TASKS[0]!, 'abort/journal/1');
      const err = await acc.complete(aborted).then(() => null, (e: unknown) => e) as CompletionAbortedError;
      expect(isCompletionAborted(err)).toBe(true);
      const c = await acc.complete(answered);
      journal.close();
      const rep = acc.report();
      expect(rep.solve).toMatchObject({ calls: 1, completionTokens: c.usage.completionTokens, aborted: 1, abortedCompletionTokens: 0 });
      const cancels = acc.cancellations();
      expect(cancels.cancelled).toBe(1);
      // Known savings are counted as they are; an unknown one is estimated (from the stage's mean so far: none yet, so 0).
      expect(cancels.estimated).toBe(err.tokensSaved === null || err.estimated ? 1 : 0);
      expect(cancels.tokensSaved).toBe(err.tokensSaved ?? 0);
      expect(rep.solve!.abortedTokensSaved).toBe(cancels.tokensSaved);
      // A resumed run re-executing the same calls from the journal: the abort comes back as an abort
      // (even without a signal this time), the answer as the answer, and the model is never asked.
      const never: typeof subject.model = { name: 'never', complete: () => { throw new Error('asked'); }, embed: () => { throw new Error('asked'); } };
      const resumed = new JournaledModel(never, { source: file });
      const again = await resumed.complete(solve(TASKS[0]!, 'abort/journal/0')).then(() => null, (e: unknown) => e);
      expect(again).toBeInstanceOf(CompletionAbortedError);
      expect((again as CompletionAbortedError).tokensSaved).toBe(err.tokensSaved);
      expect((again as CompletionAbortedError).estimated).toBe(err.estimated);
      expect((await resumed.complete(answered)).text).toBe(c.text);
      expect(resumed.asked).toBe(0);
    });

    const unreachable = backend.unreachable;
    if (unreachable) it('rejects with the documented error, naming the failure, when its backend cannot be reached', async () => {
      const dead = await unreachable();
      try {
        const err = await dead.model.complete(solve(TASKS[0]!, 'dead/0')).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(ModelRequestError);
        expect((err as ModelRequestError).attempts).toBe(1);
        expect((err as Error).message.length).toBeGreaterThan(0);
      } finally {
        await dead.close();
      }
    });
  });
}

for (const backend of [simBackend, poolBackend]) contract(backend);

describe('the LanguageModel contract fails a wrong model', () => {
  it('one that answers every request from a script, whatever was asked', async () => {
    const scripted: LanguageModel = {
      name: 'scripted',
      complete: async () => ({ text: 'So x = 10.\n\\boxed{10}', usage: { promptTokens: 40, completionTokens: 9 }, timing: { ttftMs: 1, totalMs: 2 }, model: 'scripted' }),
      embed: async (texts) => texts.map(() => new Float32Array([1, 0])),
    };
    await expect(checkAnswers(scripted)).rejects.toThrow(/contract-2/);
  });
});
