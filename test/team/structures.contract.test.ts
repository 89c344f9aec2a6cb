import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_STRUCTURES, cancelledMembers, CompletionAbortedError, type CompletionRequest, type Structure, type StructureContext, type Task } from '../../src/index';
import { createCodeGrader, createMathGrader } from '../../src/tasks/graders';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';
import { STRUCTURES } from '../../src/engine/scenario/presets';
import { solveFailure } from '../../src/engine/loop/task-run';
import { agentView, mathTask, teamOf, testRng } from '../fakes/agents';
import { RecordingModel, requestKind, type FakeAnswer } from '../fakes/recording-model';
import { headingsOf } from '../../src/llm/prompt-kinds';

const spec = loadBuiltinNicheSpecs().get('algebra')!;
const grader = createMathGrader();
const team = teamOf(agentView('a'), agentView('b'), agentView('c'));

function context(model: RecordingModel, task: Task = mathTask(), g = grader, s = spec): StructureContext {
  return {
    task, spec: s, grader: g, model, team, rng: testRng(),
    experience: () => ({ lessons: [], meta: [] }), options: { samples: 3, debateRounds: 2 },
  };
}

// A model that answers each request kind sensibly: JSON for reviews and splits, \boxed{4} otherwise.
const sensible: FakeAnswer = (req) => {
  const kind = requestKind(req);
  if (kind === 'review') return '{"verdict": "incorrect", "feedback": "check the last step"}';
  if (kind === 'decompose') return '{"parts": ["isolate x", "divide"]}';
  if (kind === 'part') return 'partial: 3x = 12';
  return 'So x = 4.\n\\boxed{4}';
};

/** Replies no extractor can read: a structure must record them as they came and invent no answer from them. */
const MALFORMED = ['{{{', '', '<think>unclosed', 'null', '```'];

/**
 * The contract on malformed member replies: the structure resolves (never throws), records every
 * call it made as an attempt carrying the reply it got (no error: the backend answered), extracts
 * no answer from any of them, and its team answer is one of those replies or none.
 */
async function checkMalformedReplies(structure: Structure): Promise<void> {
  const model = new RecordingModel(MALFORMED);
  const r = await structure(context(model));
  const replies = model.calls.map((_, i) => MALFORMED[Math.min(i, MALFORMED.length - 1)]!);
  expect(r.attempts.length).toBeGreaterThan(0);
  expect(r.attempts.length).toBe(model.calls.length);
  expect(r.attempts.map((a) => a.text).sort()).toEqual([...replies].sort());
  for (const a of r.attempts) expect([a.error, a.extracted, a.cancelled]).toEqual([undefined, null, undefined]);
  expect(Object.keys(r.memberAnswers).length).toBeGreaterThan(0);
  for (const [id, m] of Object.entries(r.memberAnswers)) {
    expect(team.members.map((x) => x.agent.id)).toContain(id);
    expect(m.extracted).toBeNull();
    expect(replies).toContain(m.text);
  }
  if (r.finalText !== null) expect(replies).toContain(r.finalText);
  expect(grader.extract(r.finalText ?? '')).toBeNull();
  expect(typeof r.disagreement).toBe('boolean');
}

/** The contract on a failing backend: every call becomes an attempt carrying the error, and there is no team answer. */
async function checkBackendFailure(structure: Structure): Promise<void> {
  const model = new RecordingModel(() => { throw new Error('503 from endpoint'); });
  const r = await structure(context(model));
  expect(r.finalText).toBeNull();
  expect(r.attempts.length).toBeGreaterThan(0);
  expect(r.attempts.length).toBe(model.calls.length);
  expect(r.attempts.every((a) => a.error === '503 from endpoint' && a.extracted === null)).toBe(true);
  expect(Object.values(r.memberAnswers).every((m) => m.extracted === null)).toBe(true);
}

describe.each(Object.entries(STRUCTURES))('structure contract: %s', (name, structure: Structure) => {
  it('produces an answer and records which member made every call', async () => {
    const model = new RecordingModel(sensible);
    const r = await structure(context(model));
    expect(r.finalText).toContain('\\boxed{4}');
    expect(grader.extract(r.finalText!)).toBe('4');
    expect(r.attempts.length).toBe(model.calls.length);
    const ids = new Set(team.members.map((m) => m.agent.id));
    for (const a of r.attempts) expect(ids.has(a.agentId)).toBe(true);
    for (const id of Object.keys(r.memberAnswers)) expect(ids.has(id)).toBe(true);
    expect(Object.keys(r.memberAnswers).length).toBeGreaterThan(0);
    expect(model.calls.every((c) => c.taskId === 'algebra-0001' && c.seedKey && c.agentId)).toBe(true);
    // The built-in team structures put every member to work (one added later may not: it gets the rest of the contract).
    if (BUILTIN_STRUCTURES.some((d) => d.name === name) && !['single', 'self-consistency'].includes(name)) {
      expect(new Set(r.attempts.map((a) => a.agentId))).toEqual(ids);
    }
  });

  it('never throws on malformed member replies: records them as they came and invents no answer', async () => {
    await checkMalformedReplies(structure);
  });

  it('never throws when the backend fails; the attempts carry the error', async () => {
    await checkBackendFailure(structure);
  });

  it('never shows gold answers or hidden tests in any prompt', async () => {
    const model = new RecordingModel(sensible);
    await structure(context(model, mathTask('algebra-0002', 'GOLD-SENTINEL')));
    for (const p of model.prompts()) expect(p).not.toContain('GOLD-SENTINEL');
  });
});

describe('the structure contract fails a wrong structure', () => {
  // Each fake resolves without throwing, which was all the contract used to ask of malformed replies.
  it('one that falls back to a made-up answer when the replies are unreadable', async () => {
    const guesses: Structure = async (ctx) => {
      const reply = await ctx.model.complete({ messages: [{ role: 'user', content: ctx.task.question }], stage: 'solve', taskId: ctx.task.id, seedKey: 'guess', agentId: 'a' });
      const extracted = grader.extract(reply.text) ?? '0';
      const attempt = { agentId: 'a', role: 'anchor' as const, step: 'solve', index: 0, text: reply.text, extracted, usage: reply.usage };
      return { finalText: `\\boxed{${extracted}}`, attempts: [attempt], memberAnswers: { a: { text: reply.text, extracted } }, disagreement: false };
    };
    await expect(checkMalformedReplies(guesses)).rejects.toThrow();
  });

  it('one that drops the calls that failed instead of recording them', async () => {
    const drops: Structure = async (ctx) => {
      await ctx.model.complete({ messages: [{ role: 'user', content: ctx.task.question }], stage: 'solve', taskId: ctx.task.id, seedKey: 'drop', agentId: 'a' }).catch(() => null);
      return { finalText: null, attempts: [], memberAnswers: {}, disagreement: false };
    };
    await expect(checkBackendFailure(drops)).rejects.toThrow();
    await expect(checkMalformedReplies(drops)).rejects.toThrow();
  });
});

describe('structure behaviour', () => {
  const code = createCodeGrader({ workers: 1, timeoutMs: 2000 });
  afterAll(() => code.close());

  it('voting takes the majority by answer equivalence; the leader breaks ties', async () => {
    const answers = new Map([['a', '\\boxed{0.5}'], ['b', '\\boxed{3}'], ['c', '\\boxed{\\frac{1}{2}}']]);
    const r = await STRUCTURES.voting!(context(new RecordingModel((req) => answers.get(req.agentId!)!)));
    expect(grader.extract(r.finalText!)).toBe('0.5');
    expect(r.disagreement).toBe(true);
  });

  it('debate shows each member the others\' answers and stops once all agree', async () => {
    const model = new RecordingModel((req, n) => (n < 3 ? `\\boxed{${req.agentId === 'a' ? 5 : 4}}` : '\\boxed{4}'));
    const r = await STRUCTURES.debate!(context(model));
    expect(model.calls.length).toBe(6);
    const revise = model.prompts()[3]!;
    expect(revise).toContain('## Other answers');
    expect(revise).toContain('\\boxed{4}');
    expect(r.disagreement).toBe(false);
  });

  it('debate asks for no further round once a member\'s call failed: the task is a failure whatever follows', async () => {
    const model = new RecordingModel((req) => {
      if (requestKind(req) === 'revise') throw new Error('503 from endpoint');
      return `\\boxed{${req.agentId === 'a' ? 5 : 4}}`;
    });
    const r = await STRUCTURES.debate!(context(model));
    // The independent round and one revision round (refused), of the two rounds asked for.
    expect(model.calls.length).toBe(6);
    expect(r.attempts.filter((a) => a.error !== undefined).map((a) => a.step)).toEqual(['debate-1', 'debate-1', 'debate-1']);
    expect(solveFailure(r)).toMatch(/^3 of 6 member calls failed/);
    expect(r.earlyStop).toBeUndefined();
  });

  it('generator-critic lets reviewers run the public tests of a code task, never the hidden ones', async () => {
    const listSpec = loadBuiltinNicheSpecs().get('list-functions')!;
    const task: Task = {
      id: 'list-functions-0001', index: 1, niche: 'list-functions', domain: 'code', difficulty: 1, block: 0, entryPoint: 'double',
      question: 'Write double(xs) returning each element doubled.',
      publicTests: ['assert double([1]) == [2]', 'assert double([]) == []'],
      hidden: { answer: 'def double(xs):\n    return [2 * x for x in xs]', distractors: [], tests: ['assert double([5, 6]) == [10, 12] # HIDDEN'] },
    };
    const model = new RecordingModel((req) => {
      if (requestKind(req) === 'review') return '{"verdict": "incorrect", "feedback": "wrong for the example"}';
      return '```python\ndef double(xs):\n    return [x + 3 for x in xs]\n```';
    });
    const r = await STRUCTURES['generator-critic']!(context(model, task, code, listSpec));
    const reviews = model.prompts().filter((p) => requestKind(p) === 'review');
    expect(reviews).toHaveLength(2);
    expect(reviews[0]).toContain('## Public test results');
    expect(reviews[0]).toMatch(/FAILED: assert double\(\[1\]\) == \[2\]/);
    for (const p of model.prompts()) expect(p).not.toContain('HIDDEN');
    expect(r.disagreement).toBe(true);
    expect(model.prompts().some((p) => requestKind(p) === 'revise' && headingsOf(p).includes('reviewer feedback'))).toBe(true);
  });

  it('decompose gives each other member a part and the leader synthesizes from their solutions', async () => {
    const model = new RecordingModel(sensible);
    await STRUCTURES.decompose!(context(model));
    const parts = model.calls.filter((c) => c.seedKey!.includes('/part/'));
    expect(parts.map((c) => c.agentId)).toEqual(['b', 'c']);
    const synth = model.prompts().find((p) => requestKind(p) === 'synthesize')!;
    expect(synth).toContain('partial: 3x = 12');
  });
});

describe('speculative completion', () => {
  /** Answers from `answers` by agent (or sample index); `null` never answers until its request is aborted. */
  const slow = (pick: (req: CompletionRequest) => string | null) => (req: CompletionRequest) => {
    const text = pick(req);
    if (text !== null) return text;
    return new Promise<string>((_, reject) => {
      req.signal!.addEventListener('abort', () => reject(new CompletionAbortedError(40, 7)), { once: true });
    });
  };
  const sample = (req: CompletionRequest) => Number(req.seedKey!.split('/').pop());

  it('voting cancels the member still answering once two agree; it did not answer and did not fail', async () => {
    const answers = new Map([['a', '\\boxed{4}'], ['b', '\\boxed{4.0}'], ['c', null]]);
    const model = new RecordingModel(slow((req) => answers.get(req.agentId!)!));
    const r = await STRUCTURES.voting!(context(model));
    expect(grader.extract(r.finalText!)).toBe('4');
    expect(model.calls.every((c) => c.signal !== undefined)).toBe(true);
    expect(model.calls.find((c) => c.agentId === 'c')!.signal!.aborted).toBe(true);
    const c = r.attempts.find((a) => a.agentId === 'c')!;
    expect(c).toMatchObject({ cancelled: true, extracted: null, text: '' });
    expect(c.error).toBeUndefined();
    expect(Object.keys(r.memberAnswers).sort()).toEqual(['a', 'b']);
    expect(cancelledMembers(r)).toEqual(new Set(['c']));
    expect(solveFailure(r)).toBeNull();
    expect(r.disagreement).toBe(false);
  });

  it('voting waits for the last member while the answers so far are split, and then has nothing to cancel', async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const model = new RecordingModel(async (req) => {
      if (req.agentId === 'c') { await gate; return '\\boxed{5}'; }
      setTimeout(() => release!(), 5);
      return req.agentId === 'a' ? '\\boxed{4}' : '\\boxed{5}';
    });
    const r = await STRUCTURES.voting!(context(model));
    expect(grader.extract(r.finalText!)).toBe('5');
    expect(r.attempts.some((a) => a.cancelled)).toBe(false);
    expect(model.calls.every((c) => !c.signal!.aborted)).toBe(true);
    expect(Object.keys(r.memberAnswers)).toHaveLength(3);
  });

  it('self-consistency stops sampling once the majority is decided', async () => {
    const model = new RecordingModel(slow((req) => (sample(req) < 2 ? '\\boxed{4}' : null)));
    const r = await STRUCTURES['self-consistency']!({ ...context(model), options: { samples: 4, debateRounds: 2 } });
    expect(grader.extract(r.finalText!)).toBe('4');
    // Two of four agree: the other two can at most tie, and a tie goes to the earlier class.
    expect(r.attempts.filter((a) => a.cancelled).map((a) => a.index)).toEqual([2, 3]);
    expect(solveFailure(r)).toBeNull();
  });

  it('a backend that answers at once is never cancelled: the result is the full vote', async () => {
    const answers = new Map([['a', '\\boxed{4}'], ['b', '\\boxed{4}'], ['c', '\\boxed{7}']]);
    const model = new RecordingModel((req) => answers.get(req.agentId!)!);
    const r = await STRUCTURES.voting!(context(model));
    expect(r.attempts.map((a) => a.extracted)).toEqual(['4', '4', '7']);
    expect(r.disagreement).toBe(true);
  });

  it('debate counts the rounds it skipped once members agree, and estimates their tokens from the last round run', async () => {
    const model = new RecordingModel((req, n) => (n < 3 ? `\\boxed{${req.agentId === 'a' ? 5 : 4}}` : '\\boxed{4}'));
    const r = await STRUCTURES.debate!({ ...context(model), options: { samples: 3, debateRounds: 4 } });
    // Round 1 reached consensus: rounds 2–4 were skipped; each round costs 3 members × 5 completion tokens.
    expect(r.earlyStop).toEqual({ roundsSkipped: 3, tokensSaved: 45 });
    const full = await STRUCTURES.debate!({ ...context(new RecordingModel((req) => `\\boxed{${req.agentId === 'a' ? 5 : 4}}`)), options: { samples: 3, debateRounds: 2 } });
    expect(full.earlyStop).toBeUndefined();
  });
});

describe('decompose: who solves each part', () => {
  it('gives a part to the helper whose experience matches it, else round robin', async () => {
    const { assignParts } = await import('../../src/team/structures/decompose');
    const parts = ['Handle the first key step: balance both sides', 'Handle the second key step: track the carry digits'];
    expect(assignParts(parts, ['nothing relevant here', 'apply the ledger: track the carry digits', 'apply the pivot: balance both sides'])).toEqual([2, 1]);
    expect(assignParts(parts, ['', '', ''])).toEqual([0, 1]);
  });
});
