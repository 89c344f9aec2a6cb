import type { Completion, CompletionRequest, LanguageModel } from './model';

/**
 * `model` with `knownRefusals` put on every completion request, read from `statuses` when the
 * request is sent (so a call made after its structure was set aside carries the refusal, even in
 * a task that started before). An empty list leaves the request as it was. Embeddings pass through.
 */
export function withKnownRefusals(model: LanguageModel, statuses: () => readonly number[]): LanguageModel {
  return {
    name: model.name,
    complete(req: CompletionRequest): Promise<Completion> {
      const known = statuses();
      return model.complete(known.length > 0 ? { ...req, knownRefusals: known } : req);
    },
    embed: (texts) => model.embed(texts),
  };
}
