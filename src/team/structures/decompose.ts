import { parseJsonLoose } from '../../llm/parse-json';
import { ask } from '../../llm/ask';
import { generate, type Attempt } from '../operators/generate';
import { decomposePrompt, solvePartPrompt, synthesizePrompt } from '../team-prompts';
import { memberContext, type Structure, type StructureDescriptor } from './structure';

/** The parts of a leader's decomposition reply (`{"parts": [...]}` or a bare list), at most `want`; null when it has none. */
export function parseParts(text: string, want: number): string[] | null {
  const parsed = parseJsonLoose(text) as { parts?: unknown } | unknown[] | undefined;
  const list = Array.isArray(parsed) ? parsed : (parsed as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(list)) return null;
  const parts = list.filter((p): p is string => typeof p === 'string' && p.trim().length > 0).map((p) => p.trim());
  return parts.length > 0 ? parts.slice(0, Math.max(want, 1)) : null;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z]{4,}/g) ?? []);

/**
 * Who solves each part: the helper whose own experience (retrieved lessons and insights) shares the
 * most words with the part's description, so a step goes to the member who has handled it before;
 * with no overlap, or a tie, part i goes to helper i (round robin). A helper may take several parts.
 */
export function assignParts(parts: readonly string[], experienceTexts: readonly string[]): number[] {
  const vocab = experienceTexts.map(words);
  return parts.map((part, i) => {
    const want = [...words(part)];
    const scores = vocab.map((v) => want.filter((w) => v.has(w)).length);
    const best = Math.max(...scores);
    const fallback = i % experienceTexts.length;
    return best > 0 && scores[fallback]! < best ? scores.indexOf(best) : fallback;
  });
}

/**
 * The leader splits the task into one sub-problem per other member; each part goes to the helper
 * whose experience matches it best (`assignParts`); the leader synthesizes the final answer from
 * the part solutions. An unusable split falls back to the whole task as the one part.
 */
const run: Structure = async (ctx) => {
  const [leader, ...others] = ctx.team.members;
  const helpers = others.length > 0 ? others : [leader!];
  const lid = leader!.agent.id;
  const split = await ask(ctx.model, decomposePrompt(memberContext(ctx, leader!), helpers.length), 'solve', lid, ctx.task.id, `${ctx.task.id}/${lid}/decompose/0`);
  const attempts: Attempt[] = [{ agentId: lid, role: leader!.role, step: 'decompose', index: 0, text: split.text, extracted: null, usage: split.usage, ...(split.error ? { error: split.error, status: split.status } : {}) }];
  const parts = parseParts(split.text, helpers.length) ?? ['Solve the whole task.'];
  const expText = helpers.map((h) => { const e = ctx.experience(h.agent.id); return [...e.lessons, ...e.meta].map((x) => x.text).join('\n'); });
  const who = assignParts(parts, expText);
  const solutions = await Promise.all(parts.map(async (part, i) => {
    const member = helpers[who[i]!]!;
    const id = member.agent.id;
    const r = await ask(ctx.model, solvePartPrompt(memberContext(ctx, member), part, i + 1, parts.length), 'solve', id, ctx.task.id, `${ctx.task.id}/${id}/part/${i}`);
    return { text: r.text, attempt: { agentId: id, role: member.role, step: 'part', index: i, text: r.text, extracted: null, usage: r.usage, ...(r.error ? { error: r.error, status: r.status } : {}) } as Attempt };
  }));
  attempts.push(...solutions.map((s) => s.attempt));
  const final = await generate({
    ...ctx, member: leader!, experience: ctx.experience(lid), step: 'synthesize', index: 0,
    messages: synthesizePrompt(memberContext(ctx, leader!), solutions.map((s) => s.text)),
  });
  attempts.push(final);
  return {
    finalText: final.text || null,
    attempts,
    memberAnswers: { [lid]: { text: final.text, extracted: final.extracted } },
    disagreement: false,
  };
};

/** The `decompose` structure (how it works: `run` above). */
export const decompose: StructureDescriptor = {
  name: 'decompose',
  description: 'you split the task into parts, the others solve the parts, you combine them.',
  choosable: true,
  run,
};
