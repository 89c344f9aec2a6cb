import { inSpan } from '../core/tracing/tracing';
import {
  ATTR_GEN_AI_AGENT_ID, ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROVIDER_NAME, ATTR_GEN_AI_REQUEST_MAX_TOKENS, ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL, ATTR_GEN_AI_USAGE_INPUT_TOKENS, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, ATTR_STAGE, ATTR_TASK_ID, GEN_AI_OPERATION_CHAT,
} from '../core/tracing/semconv';
import { isCompletionAborted, type Completion, type CompletionRequest, type LanguageModel } from './model';

/**
 * A span per completion, with the GenAI semantic conventions (core/tracing/semconv.ts): operation
 * `chat`, the requested and answering model, input and output tokens. Put directly inside the token
 * accounting, so its spans count exactly the calls and tokens the run's summary counts: a cancelled
 * call (`evochamber.aborted`) carries no usage, as it is not in the summary's counts. Only built when
 * tracing is on.
 */
export class TracedModel implements LanguageModel {
  readonly name: string;

  constructor(private readonly inner: LanguageModel, private readonly provider: string) {
    this.name = inner.name;
  }

  complete(req: CompletionRequest): Promise<Completion> {
    return inSpan(`${GEN_AI_OPERATION_CHAT} ${this.name}`, {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT, [ATTR_GEN_AI_PROVIDER_NAME]: this.provider, [ATTR_GEN_AI_REQUEST_MODEL]: this.name,
      [ATTR_STAGE]: req.stage, ...(req.maxTokens !== undefined ? { [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: req.maxTokens } : {}),
      ...(req.agentId ? { [ATTR_GEN_AI_AGENT_ID]: req.agentId } : {}), ...(req.taskId ? { [ATTR_TASK_ID]: req.taskId } : {}),
    }, async (set) => {
      try {
        const out = await this.inner.complete(req);
        set({ [ATTR_GEN_AI_RESPONSE_MODEL]: out.model, [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: out.usage.promptTokens, [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: out.usage.completionTokens });
        return out;
      } catch (err) {
        if (isCompletionAborted(err)) set({ 'evochamber.aborted': true });
        throw err;
      }
    });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }
}
