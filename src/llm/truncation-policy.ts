import { cutOff, type Completion, type CompletionRequest, type LanguageModel, type Usage } from './model';

/** What happens to a reply cut off by the token limit with no answer (docs/backends.md, "Truncated replies"). */
export type OnTruncated = 'retry' | 'fail' | 'grade';

/** The scenario's truncation settings (`model.onTruncated`, `model.truncatedRetries`, `model.truncatedBudgetFactor`). */
export interface TruncationPolicy {
  readonly onTruncated: OnTruncated;
  /** Under `retry`: how many times the request is asked again, each with a larger budget. */
  readonly truncatedRetries: number;
  /** Under `retry`: each retry's `max_tokens` is the cut-off reply's budget times this. */
  readonly truncatedBudgetFactor: number;
}

/** The defaults: ask once more with twice the budget, then grade what came back. */
export const DEFAULT_TRUNCATION: TruncationPolicy = { onTruncated: 'retry', truncatedRetries: 1, truncatedBudgetFactor: 2 };

/**
 * A reply cut off by the token limit with no answer, under `onTruncated: 'fail'`: the call failed,
 * as a call whose endpoint failed does — never an answer graded wrong. It carries the tokens the cut-off replies spent, so accounting still counts them.
 */
export class TruncatedReplyError extends Error {
  override readonly name = 'TruncatedReplyError';
  constructor(readonly usage: Usage, readonly truncated: number, readonly model: string, budget: number | undefined) {
    super(`reply cut off by the token limit${budget !== undefined ? ` (max_tokens ${budget})` : ''} with no answer, ${truncated} time${truncated === 1 ? '' : 's'} (model.onTruncated: fail)`);
  }
}

/** True for a TruncatedReplyError (also across module copies). */
export function isTruncatedReply(e: unknown): e is TruncatedReplyError {
  return e instanceof TruncatedReplyError || (e instanceof Error && e.name === 'TruncatedReplyError');
}

/** A reply cut off by the token limit that holds no answer by the request's own reading. */
export function truncatedWithoutAnswer(req: CompletionRequest, out: Completion): boolean {
  return cutOff(out) && req.holdsAnswer?.(out.text) !== true;
}

/** What a call had spent on cut-off replies when one of its retries failed (`spentBeforeFailure`). */
export interface SpentBeforeFailure {
  readonly usage: Usage;
  readonly truncated: number;
  readonly model: string;
}

const SPENT = Symbol.for('evochamber.spentBeforeFailure');

/**
 * The tokens a call spent on cut-off replies before its retry failed (an outage, a refusal, an
 * abort), carried on that failure's own error, which keeps its type (callers read it as before):
 * the accounting counts them, as it counts a TruncatedReplyError's.
 */
export function spentBeforeFailure(err: unknown): SpentBeforeFailure | undefined {
  return typeof err === 'object' && err !== null ? (err as { [SPENT]?: SpentBeforeFailure })[SPENT] : undefined;
}

function markSpent(err: unknown, spent: SpentBeforeFailure): void {
  if (typeof err !== 'object' || err === null || SPENT in err) return;
  try {
    Object.defineProperty(err, SPENT, { value: spent, enumerable: false });
  } catch {
    // a frozen error: its tokens go uncounted, as they did before
  }
}

const sumUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  ...(a.unknown !== undefined || b.unknown !== undefined ? { unknown: a.unknown ?? b.unknown } : {}),
});

/**
 * Wraps a backend that can cut replies off (finish_reason `length`) and applies the scenario's
 * policy to a cut-off reply with no answer (`req.holdsAnswer` decides; a reply that already holds
 * a closed box or code block is an answer and passes as it is):
 * - `retry`: ask again with `max_tokens` = the cut-off budget × `truncatedBudgetFactor`, up to
 *   `truncatedRetries` times; a reply still cut off after them is graded as it is (a reply with no
 *   answer grades wrong, as benchmarks score it). A reply cut off with no budget sent (the server's
 *   own context limit) cannot get a larger one and is graded at once.
 * - `fail`: the call rejects with TruncatedReplyError (the task fails, as it does when its endpoint fails).
 * - `grade`: the reply is returned as the answer.
 * Every returned completion counts its cut-off replies in `truncated`, and its `usage` holds the
 * tokens of all of them. A retry's own failure (an outage, a refusal, an abort) rejects the call,
 * its error carrying the tokens the cut-off replies spent (`spentBeforeFailure`).
 */
export class TruncationModel implements LanguageModel {
  readonly name: string;

  constructor(private readonly inner: LanguageModel, private readonly policy: TruncationPolicy = DEFAULT_TRUNCATION) {
    this.name = inner.name;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    let out = await this.inner.complete(req);
    if (!truncatedWithoutAnswer(req, out)) return out;
    let usage = out.usage;
    let truncated = 1;
    const { onTruncated, truncatedRetries, truncatedBudgetFactor } = this.policy;
    for (let i = 0; onTruncated === 'retry' && i < truncatedRetries && out.maxTokens !== undefined; i++) {
      const cut = out;
      try {
        out = await this.inner.complete({ ...req, maxTokens: Math.ceil(cut.maxTokens! * truncatedBudgetFactor) });
      } catch (err) {
        markSpent(err, { usage, truncated, model: cut.model });
        throw err;
      }
      usage = sumUsage(usage, out.usage);
      if (!truncatedWithoutAnswer(req, out)) return { ...out, usage, truncated };
      truncated += 1;
    }
    if (onTruncated === 'fail') throw new TruncatedReplyError(usage, truncated, out.model, out.maxTokens);
    return { ...out, usage, truncated };
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }
}
