import { isCompletionAborted, type Completion, type CompletionRequest, type LanguageModel, type Stage } from './model';
import type { ModelPrice, Prices } from './pricing';
import { isTruncatedReply, spentBeforeFailure } from './truncation-policy';

/** Per-stage totals: calls made and tokens spent. */
export interface StageUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose backend reported no usable token counts (estimates were counted); absent when 0. */
  unknownUsage?: number;
  /**
   * Replies cut off by the token limit with no answer (finish_reason `length`; the caller's niche
   * found no answer in them), each retry of one counted again; their tokens are in the counts above.
   * Absent when 0 (a backend that never cuts a reply off, like the in-process simulator, never shows it).
   */
  truncated?: number;
  /**
   * Calls the caller cancelled (speculative completion): not in `calls`, their tokens not in the
   * counts above, and not failures. Absent when 0.
   */
  aborted?: number;
  /** Completion tokens the aborted calls did not generate (exact or estimated: see `Cancellations`); absent when no call was aborted. */
  abortedTokensSaved?: number;
  /** Completion tokens the aborted calls generated before the abort, as the backend reported them (exact or its estimate; 0 where unknown); absent when no call was aborted. */
  abortedCompletionTokens?: number;
  /**
   * What the calls cost, in billionths of a US dollar (an integer, so sums never depend on the order
   * calls finish in), when prices are configured; absent otherwise. `usdOf` turns it into dollars.
   */
  costNanoUsd?: number;
  /** Calls answered by a model with no configured price (counted at 0); absent when 0 or no prices. */
  unpriced?: number;
}

/** The dollars a usage's `costNanoUsd` stands for (0 when there is none). */
export function usdOf(u: Pick<StageUsage, 'costNanoUsd'> | undefined): number {
  return (u?.costNanoUsd ?? 0) / 1e9;
}

/** Token usage by stage, plus the total. Stage keys appear in first-use order. */
export type TokenReport = Record<string, StageUsage> & { total: StageUsage };

/**
 * Requests the caller cancelled, over all stages. A backend that knows the answer's planned
 * length (the simulator, virtual time) reports the tokens saved exactly; an HTTP backend cannot:
 * the OpenAI pool estimates each saving as the endpoint's mean answer length so far less what it
 * estimates the request had generated (from the time it ran), and says it is an estimate. A
 * backend that gives no figure gets the same stage's mean completion tokens so far, less what it
 * says was generated.
 */
export interface Cancellations {
  /** Requests cancelled (rejected with CompletionAbortedError). */
  cancelled: number;
  /** Completion tokens not generated because of those cancellations (exact plus estimated). */
  tokensSaved: number;
  /** Of `cancelled`, those whose saving is an estimate (the backend did not know it). */
  estimated: number;
}

/**
 * Wraps a model and counts calls and tokens per stage. The wrapper is the only place accounting
 * happens, so callers never add usage by hand. A cancelled request (CompletionAbortedError) is
 * counted apart, as `aborted`, never as a call or a failure.
 */
export class AccountingModel implements LanguageModel {
  readonly name: string;
  private readonly byStage = new Map<Stage, StageUsage>();
  /** The same counts per task, until taken for that task's events (lifecycle calls serve no task; see `stage`). */
  private readonly byTask = new Map<string, Map<Stage, StageUsage>>();
  private readonly cancels: Cancellations = { cancelled: 0, tokensSaved: 0, estimated: 0 };

  /**
   * With `prices` (USD per million tokens by model name), every call's cost is counted too
   * (`costNanoUsd`): the price of the model that answered, else the only price given, else 0 and
   * the call is `unpriced`.
   */
  constructor(private readonly inner: LanguageModel, private readonly prices?: Prices) {
    this.name = inner.name;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    let out: Completion;
    try {
      out = await this.inner.complete(req);
    } catch (err) {
      if (isCompletionAborted(err)) this.countAbort(req, err.tokensSaved, err.tokensGenerated, err.estimated === true);
      // Failed under `onTruncated: fail`, after spending tokens: the call and its tokens count.
      if (isTruncatedReply(err)) this.count(req, { text: '', usage: err.usage, timing: { ttftMs: 0, totalMs: 0 }, model: err.model, truncated: err.truncated });
      // A retry of a cut-off reply failed: the cut-off replies it had spent still count, as a call.
      const spent = spentBeforeFailure(err);
      if (spent) this.count(req, { text: '', usage: spent.usage, timing: { ttftMs: 0, totalMs: 0 }, model: spent.model, truncated: spent.truncated });
      throw err;
    }
    this.count(req, out);
    return out;
  }

  private count(req: CompletionRequest, out: Completion): void {
    const price = this.priceOf(out.model);
    this.forTask(req, (into) => add(into, req.stage, out, price));
    add(this.byStage, req.stage, out, price);
  }

  /**
   * Calls and tokens by stage spent for one task so far (stages sorted by name), and forget them:
   * the engine takes them when it commits the task, so the task's events carry its cost.
   */
  takeTask(taskId: string): Record<string, StageUsage> {
    const task = this.byTask.get(taskId);
    this.byTask.delete(taskId);
    const out: Record<string, StageUsage> = {};
    for (const stage of [...(task?.keys() ?? [])].sort()) out[stage] = { ...task!.get(stage)! };
    return out;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }

  /** Totals of one stage so far (zeros when unused). */
  stage(stage: Stage): StageUsage {
    return { calls: 0, promptTokens: 0, completionTokens: 0, ...this.byStage.get(stage) };
  }

  /** Cancelled requests so far, over all stages, and the tokens they saved. */
  cancellations(): Cancellations {
    return { ...this.cancels };
  }

  /** A copy of the totals so far, stages sorted by name for a stable summary. */
  report(): TokenReport {
    const total: StageUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
    const out: Record<string, StageUsage> = {};
    for (const stage of [...this.byStage.keys()].sort()) {
      const u = this.byStage.get(stage)!;
      out[stage] = { ...u };
      total.calls += u.calls;
      total.promptTokens += u.promptTokens;
      total.completionTokens += u.completionTokens;
      if (u.unknownUsage) total.unknownUsage = (total.unknownUsage ?? 0) + u.unknownUsage;
      if (u.truncated) total.truncated = (total.truncated ?? 0) + u.truncated;
      if (u.costNanoUsd !== undefined) total.costNanoUsd = (total.costNanoUsd ?? 0) + u.costNanoUsd;
      if (u.unpriced) total.unpriced = (total.unpriced ?? 0) + u.unpriced;
      if (u.aborted) {
        total.aborted = (total.aborted ?? 0) + u.aborted;
        total.abortedTokensSaved = (total.abortedTokensSaved ?? 0) + (u.abortedTokensSaved ?? 0);
        total.abortedCompletionTokens = (total.abortedCompletionTokens ?? 0) + (u.abortedCompletionTokens ?? 0);
      }
    }
    return Object.assign(out, { total }) as TokenReport;
  }

  /** The price of `model`: its own, else the only one configured; null without prices, undefined when unpriced. */
  private priceOf(model: string): ModelPrice | null | undefined {
    if (!this.prices) return null;
    const own = this.prices[model];
    if (own) return own;
    const all = Object.values(this.prices);
    return all.length === 1 ? all[0] : undefined;
  }

  private countAbort(req: CompletionRequest, saved: number | null, generated: number | null, estimated: boolean): void {
    let tokens = saved;
    if (estimated) this.cancels.estimated += 1;
    if (tokens === null) {
      const s = this.byStage.get(req.stage);
      const mean = s && s.calls > 0 ? s.completionTokens / s.calls : 0;
      tokens = Math.max(0, Math.round(mean) - (generated ?? 0));
      if (!estimated) this.cancels.estimated += 1;
    }
    this.cancels.cancelled += 1;
    this.cancels.tokensSaved += tokens;
    const into = (m: Map<Stage, StageUsage>) => {
      const u = m.get(req.stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
      u.aborted = (u.aborted ?? 0) + 1;
      u.abortedTokensSaved = (u.abortedTokensSaved ?? 0) + tokens;
      u.abortedCompletionTokens = (u.abortedCompletionTokens ?? 0) + (generated ?? 0);
      m.set(req.stage, u);
    };
    into(this.byStage);
    this.forTask(req, into);
  }

  private forTask(req: CompletionRequest, f: (into: Map<Stage, StageUsage>) => void): void {
    if (req.taskId === undefined || req.stage === 'lifecycle') return;
    let task = this.byTask.get(req.taskId);
    if (!task) this.byTask.set(req.taskId, (task = new Map()));
    f(task);
  }
}

function add(into: Map<Stage, StageUsage>, stage: Stage, out: Completion, price: ModelPrice | null | undefined): void {
  const u = into.get(stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
  u.calls += 1;
  u.promptTokens += out.usage.promptTokens;
  u.completionTokens += out.usage.completionTokens;
  if (out.usage.unknown !== undefined) u.unknownUsage = (u.unknownUsage ?? 0) + 1;
  if (out.truncated) u.truncated = (u.truncated ?? 0) + out.truncated;
  if (price !== null) {
    // Nano-dollars: tokens × (USD per million tokens) × 1000, rounded per call to an integer.
    u.costNanoUsd = (u.costNanoUsd ?? 0) + (price ? Math.round((out.usage.promptTokens * price.input + out.usage.completionTokens * price.output) * 1000) : 0);
    if (!price) u.unpriced = (u.unpriced ?? 0) + 1;
  }
  into.set(stage, u);
}
