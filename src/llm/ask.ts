import { isCompletionAborted, type ChatMessage, type CompletionRequest, type LanguageModel, type Stage, type Usage } from './model';

/** A model reply, or the error that replaced it. Never thrown. */
export interface Reply {
  readonly text: string;
  readonly usage: Usage;
  readonly error?: string;
  /** The HTTP status of the last failed attempt behind `error`, when the backend knows it. */
  readonly status?: number;
  /** The call was cancelled through its signal (speculative completion): no answer, and no error either. */
  readonly aborted?: true;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

/**
 * The stage a call is asked under: an accounting stage, or a finer part for sampling overrides
 * (`critic`: accounted under solve; `staleness`: under reflect).
 */
export type AskStage = Stage | 'critic' | 'staleness';

const ACCOUNTED: Record<'critic' | 'staleness', { stage: Stage; samplingStage: CompletionRequest['samplingStage'] }> = {
  critic: { stage: 'solve', samplingStage: 'critic' },
  staleness: { stage: 'reflect', samplingStage: 'staleness' },
};

/**
 * One model call on behalf of an agent for a task; a backend failure becomes `{error}` with empty
 * text, a cancellation (CompletionAbortedError, through `signal` or replayed from a journal) `{aborted}`.
 * `holdsAnswer` says whether a reply the token limit cut off still holds an answer (the truncation
 * policy's question; absent: it holds none), and a reply failed under `onTruncated: fail` is `{error}`.
 */
export async function ask(
  model: LanguageModel, messages: readonly ChatMessage[], stage: AskStage, agentId: string, taskId: string, seedKey: string,
  signal?: AbortSignal, holdsAnswer?: (text: string) => boolean,
): Promise<Reply> {
  const stages = stage === 'critic' || stage === 'staleness' ? ACCOUNTED[stage] : { stage };
  try {
    const out = await model.complete({ messages, ...stages, agentId, taskId, seedKey, ...(signal ? { signal } : {}), ...(holdsAnswer ? { holdsAnswer } : {}) });
    return { text: out.text, usage: out.usage };
  } catch (err) {
    if (isCompletionAborted(err)) return { text: '', usage: NO_USAGE, aborted: true };
    const status = (err as { status?: unknown })?.status;
    return { text: '', usage: NO_USAGE, error: String((err as Error)?.message ?? err), ...(typeof status === 'number' ? { status } : {}) };
  }
}
