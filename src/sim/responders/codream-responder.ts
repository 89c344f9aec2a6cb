import type { Strategy } from '../sim-world';
import { ownKnowledge } from '../prompt-reader';
import type { Responder, ResponderContext } from './responder';
import { discoveryDraw, heldShare } from './reflect-responder';

const json = (v: unknown) => ({ text: JSON.stringify(v), lengthClass: 'json' as const });
const phrase = (s: Strategy) => `the ${s.phrase} (${s.gloss})`;

/** Strategies relevant to the task (its required ones, its domain's, cross-domain) named in `text`. */
function relevant(ctx: ResponderContext, text: string): Strategy[] {
  const { entry, world } = ctx;
  if (!entry) return [];
  const { task } = entry;
  const pool = new Set([
    ...world.required(task.niche, task.id, task.difficulty, task.question), ...world.domainStrategies(task.domain), ...world.crossStrategies(),
  ].map((s) => s.phrase));
  return world.mentioned(text).filter((s) => pool.has(s.phrase));
}

/**
 * CoDream reflect: a private diagnosis naming the relevant strategies the member's own knowledge
 * had. Like a post-task reflection it makes one discovery draw (same rates, `discoveryDraw`): it
 * may name one strategy the member lacked. That draw is the only new knowledge a session can carry.
 */
export const dreamReflectResponder: Responder = (ctx) => {
  const used = relevant(ctx, ownKnowledge(ctx.prompt));
  const reward = Number(/Reward:\s*([0-9.]+)/.exec(ctx.prompt.full)?.[1] ?? 0);
  const ok = /\(succeeded\)/.test(ctx.prompt.sections.get('your attempt') ?? '');
  const known = new Set(ctx.world.mentioned(ctx.prompt.full).map((s) => s.phrase));
  // Competence read from the member's own knowledge only when the world asks for it (`reflectCompetence`).
  const held = ctx.entry && ctx.params.reflectCompetence > 0 ? heldShare(ctx.entry, ctx.world, ownKnowledge(ctx.prompt)) : 0;
  const found = ctx.entry ? discoveryDraw(ctx.entry, reward, known, ctx.world, ctx.params, ctx.rng, held) : undefined;
  const relied = used.length ? `; I relied on ${used.map(phrase).join(' and ')}` : '; I had no specific technique for this';
  return json({ diagnosis: `${ok ? 'It worked' : 'It failed'}${relied}.${found ? ` Looking back, ${phrase(found)} would have helped.` : ''}` });
};

/**
 * CoDream contrast: the relevant strategies attempt B (and its diagnosis) names that attempt A
 * lacks. It reads only the two attempts and diagnoses in its prompt: with no difference it
 * names no technique (no knowledge from the side channel).
 */
export const dreamContrastResponder: Responder = (ctx) => {
  const a = `${ctx.prompt.sections.get([...ctx.prompt.sections.keys()].find((k) => k.startsWith('attempt a')) ?? '') ?? ''}`;
  const b = `${ctx.prompt.sections.get([...ctx.prompt.sections.keys()].find((k) => k.startsWith('attempt b')) ?? '') ?? ''}`;
  const inA = new Set(relevant(ctx, a).map((s) => s.phrase));
  const delta = relevant(ctx, b).filter((s) => !inA.has(s.phrase));
  if (delta.length) return json({ delta: `B used ${delta.map(phrase).join(' and ')}; A did not.` });
  return json({ delta: 'Both attempts rushed the final step.' });
};

/** CoDream imagine: one proposal per strategy named in the contrasts, plus one vague proposal. */
export const dreamImagineResponder: Responder = (ctx) => {
  const niche = ctx.entry?.task.niche ?? '*';
  const named = relevant(ctx, ctx.prompt.sections.get('contrasts') ?? '');
  const unique = [...new Map(named.map((s) => [s.phrase, s])).values()];
  const proposals = unique.map((s) => ({ strategy: `Apply ${phrase(s)}.`, niches: s.scope === 'cross' ? ['*'] : [niche] }));
  proposals.push({ strategy: 'Be more careful next time.', niches: [niche] });
  return json({ proposals });
};

/** CoDream debate: keep proposals that name a real technique (usually), drop vague ones (usually). */
export const dreamDebateResponder: Responder = (ctx) => {
  const lines = (ctx.prompt.sections.get('proposals') ?? '').split('\n').filter((l) => /^\d+\./.test(l));
  const keep: number[] = [];
  const drop: number[] = [];
  lines.forEach((line, i) => {
    const concrete = ctx.world.mentioned(line).length > 0;
    (ctx.rng.chance(concrete ? ctx.params.dreamKeepConcrete : ctx.params.dreamKeepVague) ? keep : drop).push(i + 1);
  });
  if (ctx.rng.chance(ctx.params.malformed)) return { text: 'Keep the good ones.', lengthClass: 'json' };
  return json({ keep, drop });
};

/** CoDream crystallize: each surviving proposal as an insight, its level read off the strategy's scope. */
export const dreamCrystallizeResponder: Responder = (ctx) => {
  const niche = ctx.entry?.task.niche ?? null;
  // An insight says what it was learnt on when the task's text showed a problem type (`taskFamilies`).
  const type = ctx.entry ? ctx.world.problemType(ctx.entry.task.niche, ctx.entry.task.question) : undefined;
  const where = type === undefined ? 'a task in this area' : `one of the ${type}`;
  const insights = (ctx.prompt.sections.get('surviving proposals') ?? '').split('\n').filter((l) => /^\d+\./.test(l)).map((line) => {
    const s = ctx.world.mentioned(line)[0];
    const text = line.replace(/^\d+\.\s*/, '').replace(/\s*\[niches:.*\]$/, '');
    if (!s) return { text, level: 'task-local', niche };
    return s.scope === 'cross'
      ? { text: `On any task, ${text.charAt(0).toLowerCase()}${text.slice(1)}`, level: 'cross-domain', niche: null }
      : { text: `When ${where} resists, ${text.charAt(0).toLowerCase()}${text.slice(1)}`, level: 'subdomain', niche };
  });
  return json({ insights });
};
