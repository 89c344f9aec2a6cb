import { ask } from '../../llm/ask';
import { chooseStructurePrompt, parseStructureChoice } from '../leadlearn/choose-prompt';
import { STRUCTURE_NAMES, type LeadershipEntry } from '../leadlearn/leadership-bank';
import { profileBucket } from '../leadlearn/leadership-stats';
import type { ChoiceEvidence } from '../leadlearn/choose-prompt';
import type { Choice, ChoiceContext, StructureChooser } from './chooser';

async function askLeader(ctx: ChoiceContext, records: readonly LeadershipEntry[], evidence: ChoiceEvidence | null): Promise<Choice> {
  const leader = ctx.team.members[0]!.agent;
  const reply = await ask(
    ctx.model, chooseStructurePrompt(leader.persona, ctx.spec, ctx.team.members.length, ctx.profile, records, ctx.debateRounds, evidence),
    'leadlearn', leader.id, ctx.task.id, `${ctx.task.id}/${leader.id}/choose`,
  );
  const parsed = reply.error ? null : parseStructureChoice(reply.text);
  return parsed
    ? { structure: parsed.structure, source: 'model', retrieved: records, why: parsed.why, usage: reply.usage }
    : { structure: ctx.fallback, source: 'fallback', retrieved: records, why: reply.error ?? 'unusable reply', usage: reply.usage };
}

/**
 * LeadLearn: the leader sees every structure's statistics over the whole bank for this niche and
 * for teams of a similar profile (kept incrementally), plus the bank entries nearest to
 * `[niche, team competence profile]`, all as of the task's start version; its model proposes a
 * structure from them. An unusable reply falls back to the preset's structure and is counted.
 */
export const leadlearnChooser: StructureChooser = (ctx) => askLeader(ctx, ctx.bank.query(ctx.key, ctx.k, ctx.poolVersion), {
  niche: ctx.bank.stats.forNiche(ctx.task.niche, STRUCTURE_NAMES, ctx.poolVersion),
  team: ctx.bank.stats.forTeam(ctx.profile, STRUCTURE_NAMES, ctx.poolVersion),
  bucket: profileBucket(ctx.profile),
});

/** The model proposes a structure from the task alone, with no records (the `structure-only` baseline). */
export const zeroShotChooser: StructureChooser = (ctx) => askLeader(ctx, [], null);
