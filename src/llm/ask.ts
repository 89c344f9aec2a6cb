import { isCompletionAborted, type ChatMessage, type LanguageModel, type Stage, type Usage } from './model';

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
 * One model call on behalf of an agent for a task; a backend failure becomes `{error}` with empty
 * text, a cancellation (CompletionAbortedError, through `signal` or replayed from a journal) `{aborted}`.
 */
export async function ask(
  model: LanguageModel, messages: readonly ChatMessage[], stage: Stage, agentId: string, taskId: string, seedKey: string,
  signal?: AbortSignal,
): Promise<Reply> {
  try {
    const out = await model.complete({ messages, stage, agentId, taskId, seedKey, ...(signal ? { signal } : {}) });
    return { text: out.text, usage: out.usage };
  } catch (err) {
    if (isCompletionAborted(err)) return { text: '', usage: NO_USAGE, aborted: true };
    const status = (err as { status?: unknown })?.status;
    return { text: '', usage: NO_USAGE, error: String((err as Error)?.message ?? err), ...(typeof status === 'number' ? { status } : {}) };
  }
}
