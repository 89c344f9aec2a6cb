import { describe, expect, it } from 'vitest';
import type { Completion, CompletionRequest, LanguageModel } from '../../src/llm/model';
import { AccountingModel } from '../../src/llm/token-accounting';
import { TruncatedReplyError, TruncationModel, type TruncationPolicy } from '../../src/llm/truncation-policy';
import { ask } from '../../src/llm/ask';
import { OpenAIPoolModel } from '../../src/llm/openai/openai-pool-model';
import { fakeFetch, json, recordingSleep } from './openai/fake-fetch';

/**
 * A backend that thinks for `needs` tokens before answering "\\boxed{7}": with a smaller budget the
 * reply is cut off empty (finish_reason length), as a reasoning model's is. It records every budget asked.
 */
function thinker(needs: number, o: { noBudget?: boolean } = {}): LanguageModel & { budgets: Array<number | undefined> } {
  const budgets: Array<number | undefined> = [];
  return {
    name: 'thinker',
    budgets,
    async complete(req: CompletionRequest): Promise<Completion> {
      const budget = req.maxTokens ?? (o.noBudget ? undefined : 100);
      budgets.push(req.maxTokens);
      const cut = budget === undefined ? needs > 1000 : budget < needs;
      const used = cut ? (budget ?? 1000) : needs;
      return {
        text: cut ? '' : '\\boxed{7}', usage: { promptTokens: 10, completionTokens: used }, timing: { ttftMs: 0, totalMs: 0 }, model: 'm',
        finishReason: cut ? 'length' : 'stop', ...(cut && budget !== undefined ? { maxTokens: budget } : {}),
      };
    },
    embed: async (texts) => texts.map(() => new Float32Array([1])),
  };
}

const policy = (p: Partial<TruncationPolicy>): TruncationPolicy => ({ onTruncated: 'retry', truncatedRetries: 1, truncatedBudgetFactor: 2, ...p });
const req = (stage: CompletionRequest['stage'] = 'solve', holdsAnswer?: (t: string) => boolean): CompletionRequest => ({
  messages: [{ role: 'user', content: 'q' }], stage, taskId: 't1', ...(holdsAnswer ? { holdsAnswer } : {}),
});

describe('the truncation policy', () => {
  it('retry: asks again with the cut-off budget times the factor, and counts the cut-off reply and its tokens', async () => {
    const inner = thinker(150);
    const out = await new TruncationModel(inner, policy({})).complete(req());
    expect(inner.budgets).toEqual([undefined, 200]);
    expect(out.text).toBe('\\boxed{7}');
    expect(out.finishReason).toBe('stop');
    expect(out.truncated).toBe(1);
    expect(out.usage).toEqual({ promptTokens: 20, completionTokens: 250 });
  });

  it('retry: a reply still cut off after the retries is graded as it is, every cut counted', async () => {
    const inner = thinker(10_000);
    const out = await new TruncationModel(inner, policy({ truncatedRetries: 3, truncatedBudgetFactor: 3 })).complete(req());
    expect(inner.budgets).toEqual([undefined, 300, 900, 2700]);
    expect(out.text).toBe('');
    expect(out.truncated).toBe(4);
    expect(out.usage.completionTokens).toBe(100 + 300 + 900 + 2700);
  });

  it('retry: a reply cut off with no budget sent (the server\'s own limit) is not retried', async () => {
    const inner = thinker(5000, { noBudget: true });
    const out = await new TruncationModel(inner, policy({})).complete(req());
    expect(inner.budgets).toEqual([undefined]);
    expect(out.truncated).toBe(1);
  });

  it('fail: rejects with TruncatedReplyError carrying the tokens spent, which ask turns into a failed call', async () => {
    const model = new TruncationModel(thinker(150), policy({ onTruncated: 'fail' }));
    const err = await model.complete(req()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TruncatedReplyError);
    expect((err as TruncatedReplyError).usage.completionTokens).toBe(100);
    const reply = await ask(model, [{ role: 'user', content: 'q' }], 'solve', 'a', 't1', 'k');
    expect(reply.error).toMatch(/cut off by the token limit \(max_tokens 100\) with no answer/);
    expect(reply.text).toBe('');
  });

  it('grade: the cut-off reply is the answer, counted', async () => {
    const inner = thinker(150);
    const out = await new TruncationModel(inner, policy({ onTruncated: 'grade' })).complete(req());
    expect(inner.budgets).toEqual([undefined]);
    expect(out).toMatchObject({ text: '', finishReason: 'length', truncated: 1 });
  });

  it('a cut-off reply that holds an answer by the caller\'s reading passes as it is, under every setting, and is not counted', async () => {
    const cutWithBox: LanguageModel = {
      name: 'x', embed: async () => [],
      complete: async () => ({ text: '\\boxed{3} and then', usage: { promptTokens: 1, completionTokens: 5 }, timing: { ttftMs: 0, totalMs: 0 }, model: 'm', finishReason: 'length', maxTokens: 5 }),
    };
    for (const onTruncated of ['retry', 'fail', 'grade'] as const) {
      const out = await new TruncationModel(cutWithBox, policy({ onTruncated })).complete(req('solve', (t) => t.includes('\\boxed{3}')));
      expect(out.text).toBe('\\boxed{3} and then');
      expect(out.truncated).toBeUndefined();
    }
  });

  it('a finished reply is untouched (the same object)', async () => {
    const inner = thinker(50);
    const m = new TruncationModel(inner, policy({ onTruncated: 'fail' }));
    const out = await m.complete(req());
    expect(out.truncated).toBeUndefined();
    expect(inner.budgets).toEqual([undefined]);
  });
});

describe('accounting of truncated replies', () => {
  it('counts them per stage and in the total, tokens included, also for a call failed by them', async () => {
    const retrying = new AccountingModel(new TruncationModel(thinker(150), policy({})));
    await retrying.complete(req('solve'));
    await retrying.complete(req('reflect'));
    const r = retrying.report();
    expect(r.solve).toMatchObject({ calls: 1, truncated: 1, completionTokens: 250 });
    expect(r.reflect).toMatchObject({ calls: 1, truncated: 1 });
    expect(r.total.truncated).toBe(2);
    expect(retrying.takeTask('t1').solve).toMatchObject({ truncated: 1 });

    const failing = new AccountingModel(new TruncationModel(thinker(150), policy({ onTruncated: 'fail' })));
    await expect(failing.complete(req('solve'))).rejects.toBeInstanceOf(TruncatedReplyError);
    expect(failing.report().solve).toMatchObject({ calls: 1, truncated: 1, completionTokens: 100 });
  });

  it('counts the cut-off reply\'s tokens when its retry fails (the retry\'s error keeps its type)', async () => {
    const inner = thinker(150);
    const outage = new Error('endpoint down');
    const failingRetry: LanguageModel = { ...inner, complete: (r) => (r.maxTokens !== undefined ? Promise.reject(outage) : inner.complete(r)) };
    const m = new AccountingModel(new TruncationModel(failingRetry, policy({})));
    await expect(m.complete(req('solve'))).rejects.toBe(outage);
    expect(m.report().solve).toMatchObject({ calls: 1, truncated: 1, promptTokens: 10, completionTokens: 100 });
    // A call that failed without a cut-off reply before it counts nothing, as before.
    const plain = new AccountingModel({ ...inner, complete: () => Promise.reject(new Error('down')) });
    await expect(plain.complete(req('solve'))).rejects.toThrow('down');
    expect(plain.report().solve).toBeUndefined();
  });

  it('leaves the field absent when no reply was cut off (summaries of backends that never cut stay as they were)', async () => {
    const m = new AccountingModel(new TruncationModel(thinker(50), policy({})));
    await m.complete(req('solve'));
    const r = m.report();
    expect('truncated' in r.solve!).toBe(false);
    expect('truncated' in r.total).toBe(false);
  });
});

describe('a cut-off reply from the wire', () => {
  it('takes content: null with finish_reason length (vLLM cut off in the thinking) as an empty, cut-off reply, not a malformed one', async () => {
    const body = { id: 'c', object: 'chat.completion', created: 1, model: 'Qwen/Qwen3-8B', choices: [{ index: 0, message: { role: 'assistant', content: null, reasoning_content: 'Let me think' }, logprobs: null, finish_reason: 'length' }], usage: { prompt_tokens: 5, completion_tokens: 32 } };
    const { fetch, calls } = fakeFetch(() => json(200, body));
    const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://a:1/v1', model: 'm' }], retries: 2, maxTokens: 32 }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const out = await pool.complete(req());
    expect(calls).toHaveLength(1);
    expect(out).toMatchObject({ text: '', reasoning: 'Let me think', finishReason: 'length', maxTokens: 32 });
  });
});
