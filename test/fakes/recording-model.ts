import type { Completion, CompletionRequest, LanguageModel } from '../../src/index';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { headingsOf, kindOfHeadings, type RequestKind } from '../../src/llm/prompt-kinds';

/**
 * The kind of a request (`review`, `decompose`, `part`, …) as the simulator tells it, from the one
 * table of headings (src/llm/prompt-kinds.ts): a fake that matches heading text itself would take
 * "## Reviewer feedback" for "## Review".
 */
export function requestKind(req: CompletionRequest | string): RequestKind {
  const text = typeof req === 'string' ? req : req.messages.map((m) => m.content).join('\n');
  const heads = new Set(headingsOf(text));
  return kindOfHeadings((h) => heads.has(h));
}

/** How a fake answers: one value for everything, a list consumed in order (last repeats), or a function. */
export type FakeAnswer = string | readonly string[] | ((req: CompletionRequest, call: number) => string | Promise<string>);

/** A model that records every request and answers from a value, a list or a function. */
export class RecordingModel implements LanguageModel {
  readonly name = 'fake';
  readonly calls: CompletionRequest[] = [];
  private readonly embedder = createHashEmbedder();

  constructor(private readonly answer: FakeAnswer) {}

  async complete(req: CompletionRequest): Promise<Completion> {
    const n = this.calls.length;
    this.calls.push(req);
    const a = this.answer;
    const text = typeof a === 'string' ? a : typeof a === 'function' ? await a(req, n) : (a[Math.min(n, a.length - 1)] ?? '');
    return { text, usage: { promptTokens: 10, completionTokens: 5 }, timing: { ttftMs: 1, totalMs: 2 }, model: this.name };
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.embedder.embed([...texts]);
  }

  /** The user-message text of every recorded request. */
  prompts(): string[] {
    return this.calls.map((c) => c.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n'));
  }
}
