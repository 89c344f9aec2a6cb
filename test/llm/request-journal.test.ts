import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Completion, type CompletionRequest, type LanguageModel } from '../../src/index';
import { JournaledModel } from '../../src/llm/request-journal';

const answer: Completion = { text: 'ok', usage: { promptTokens: 1, completionTokens: 1 } } as unknown as Completion;
const inner: LanguageModel = { name: 'fake', complete: async () => answer, embed: async (t) => t.map(() => new Float32Array(2)) };

/** A request that counts how often its messages are read (hashing it reads them; the fake model does not). */
function countingRequest(): { req: CompletionRequest; reads: () => number } {
  let reads = 0;
  const messages = [{ role: 'user' as const, content: 'hello' }];
  const req = { stage: 'solve', get messages() { reads++; return messages; } } as unknown as CompletionRequest;
  return { req, reads: () => reads };
}

describe('request journal', () => {
  it('hashes no request when there is no journal to write or to answer from', async () => {
    const j = new JournaledModel(inner, {});
    const { req, reads } = countingRequest();
    await j.complete(req);
    await j.complete(req);
    expect(reads()).toBe(0);
    expect(j.asked).toBe(2);
  });

  it('still keys every request it writes, so a resume answers them', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-journal-')), 'journal.jsonl');
    const w = new JournaledModel(inner, { target: file });
    const { req, reads } = countingRequest();
    await w.complete(req);
    w.close();
    expect(reads()).toBeGreaterThan(0);
    const r = new JournaledModel({ ...inner, complete: async () => { throw new Error('asked the model'); } }, { source: file });
    await expect(r.complete(countingRequest().req)).resolves.toEqual(answer);
    expect(r.served).toBe(1);
  });
});
