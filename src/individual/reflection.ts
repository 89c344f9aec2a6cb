import type { LanguageModel } from '../llm/model';
import { ask } from '../llm/ask';
import { buildReflectPrompt, type ReflectionInput } from './agent-prompts';
import type { ArchiveEntry } from './archive';
import { parseReflection } from './reflection-parse';

/** One agent's reflection: the parsed lesson and insight as archive entries, or why it failed. */
export interface Reflection {
  readonly agentId: string;
  readonly entries: readonly ArchiveEntry[];
  readonly lesson: string | null;
  readonly meta: string | null;
  /** False when the reply could not be parsed (recorded as a failed attempt). */
  readonly parsed: boolean;
  /** Why the reflection fell back to nothing (model call out of retries, or an unusable reply). */
  readonly fallback?: string;
}

/** What one agent reflects on, and where its entries will be filed. */
export interface ReflectRequest extends ReflectionInput {
  readonly model: LanguageModel;
  readonly agentId: string;
  /** Pool version the task started at (the entries' provenance). */
  readonly poolVersion: number;
}

/**
 * Reflect (the individual level's learning step): the agent reviews its own answer, the team's
 * answer and the reward it earned, and writes a niche lesson and, optionally, a cross-niche meta
 * insight, each embedded with the task's question as its retrieval key. Never throws for a
 * failed call or an unusable reply: it falls back to nothing and says why.
 */
export async function reflect(r: ReflectRequest): Promise<Reflection> {
  const { model, agentId: id, task } = r;
  const base = { agentId: id, entries: [], lesson: null, meta: null };
  // A reflection the token limit cut off is still one when its JSON can be read.
  const reply = await ask(model, buildReflectPrompt(r), 'reflect', id, task.id, `${task.id}/${id}/reflect`, undefined, (text) => parseReflection(text) !== undefined);
  const parsed = reply.error ? undefined : parseReflection(reply.text);
  if (!parsed) return { ...base, parsed: false, fallback: reply.error ? `model call failed: ${reply.error}` : 'unusable reply' };
  const texts = [parsed.lesson, parsed.meta].filter((t) => t.length > 0);
  const keys = await model.embed(texts.map((t) => `${task.question}\n${t}`));
  const entries: ArchiveEntry[] = [{
    id: `${id}:${task.id}:lesson`, text: parsed.lesson, niche: task.niche, level: 'lesson',
    source: 'reflection', taskId: task.id, poolVersion: r.poolVersion, key: keys[0]!,
  }];
  if (parsed.meta) {
    entries.push({
      id: `${id}:${task.id}:meta`, text: parsed.meta, niche: null, level: 'meta',
      source: 'reflection', taskId: task.id, poolVersion: r.poolVersion, key: keys[1]!,
    });
  }
  return { agentId: id, entries, lesson: parsed.lesson, meta: parsed.meta || null, parsed: true };
}
