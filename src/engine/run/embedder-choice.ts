import { createHashEmbedder } from '../../llm/hash-embedder';
import type { TextEmbedder } from '../../llm/text-embedder';
import { createUseLiteEmbedder } from '../../llm/use-lite-embedder';
import type { Scenario } from '../scenario/scenario-schema';

/** The hashed embedder as a `TextEmbedder` (what the simulator and the pool use by default). */
export function hashedTextEmbedder(): TextEmbedder {
  const h = createHashEmbedder();
  return { name: 'hashed', dim: h.dim, embed: (texts) => h.embed([...texts]) };
}

/**
 * The model stack's embedder option for a scenario: none when `memory.embedder` names none (the
 * backend embeds, as always), else that embedder. (The schema refuses one beside `model.embeddings`.)
 */
export function embedderOption(scenario: Scenario, onNotice?: (line: string) => void): { embedder?: TextEmbedder } {
  const name = scenario.memory.embedder;
  if (name === undefined) return {};
  return { embedder: name === 'use-lite' ? createUseLiteEmbedder(onNotice ? { onLoading: onNotice } : {}) : hashedTextEmbedder() };
}
