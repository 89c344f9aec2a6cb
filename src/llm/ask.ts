import type { ChatMessage, LanguageModel, Stage, Usage } from './model';

/** A model reply, or the error that replaced it. Never thrown. */
export interface Reply {
  readonly text: string;
  readonly usage: Usage;
  readonly error?: string;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

/** One model call on behalf of an agent for a task; a backend failure becomes `{error}` with empty text. */
export async function ask(
  model: LanguageModel, messages: readonly ChatMessage[], stage: Stage, agentId: string, taskId: string, seedKey: string,
): Promise<Reply> {
  try {
    const out = await model.complete({ messages, stage, agentId, taskId, seedKey });
    return { text: out.text, usage: out.usage };
  } catch (err) {
    return { text: '', usage: NO_USAGE, error: String((err as Error)?.message ?? err) };
  }
}
