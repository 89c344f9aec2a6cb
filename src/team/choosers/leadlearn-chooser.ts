import { ask } from '../../llm/ask';
import { chooseStructurePrompt, parseStructureChoice } from '../leadlearn/choose-prompt';
import type { LeadershipEntry } from '../leadlearn/leadership-bank';
import { choosableStructures } from '../structures';
import type { ChoiceEvidence } from '../leadlearn/choose-prompt';
import type { Choice, ChoiceContext, ChooserDescriptor, StructureChooser } from './chooser';

async function askLeader(ctx: ChoiceContext, records: readonly LeadershipEntry[], evidence: ChoiceEvidence | null): Promise<Choice> {
  const leader = ctx.team.members[0]!.agent;
  const offered = ctx.structures ?? choosableStructures();
  const reply = await ask(
    ctx.model, chooseStructurePrompt(leader.persona, ctx.spec, ctx.team.members.length, ctx.profile, records, ctx.debateRounds, evidence, offered),
    'leadlearn', leader.id, ctx.task.id, `${ctx.task.id}/${leader.id}/choose`,
  );
  const parsed = reply.error ? null : parseStructureChoice(reply.text, offered.map((d) => d.name));
  return parsed
    ? { structure: parsed.structure, source: 'model', retrieved: records, why: parsed.why, usage: reply.usage }
    : { structure: ctx.fallback, source: 'fallback', retrieved: records, why: reply.error ?? 'unusable reply', usage: reply.usage };
}

/**
 * LeadLearn: the leader sees every structure's statistics over the whole bank for this niche (count,
 * mean, 95% interval), then, labelled as a prior, its mean over the other niches (one mean per
 * niche), then the bank entries nearest to `[niche, team competence profile]`, all as of the task's
 * start version; its model proposes a structure from them. An unusable reply falls back to the preset's structure and is counted.
 */
export const leadlearnChooser: StructureChooser = (ctx) => {
  const names = (ctx.structures ?? choosableStructures()).map((d) => d.name);
  return askLeader(ctx, ctx.bank.query(ctx.key, ctx.k, ctx.poolVersion), {
    niche: ctx.bank.stats.forNiche(ctx.task.niche, names, ctx.poolVersion),
    prior: ctx.bank.stats.priorFor(ctx.task.niche, names, ctx.poolVersion),
  });
};

/** The `leadlearn` chooser: the leader chooses from the bank, and notes each outcome into it. */
export const leadlearn: ChooserDescriptor = {
  name: 'leadlearn', choose: leadlearnChooser, writesNotes: true,
  knobs: [{ kind: 'int', path: 'team.leadlearnK', min: 1, max: 32, description: 'leadership-bank records the leader is shown' }],
};

/** The model proposes a structure from the task alone, with no records (the `structure-only` baseline). */
export const zeroShotChooser: StructureChooser = (ctx) => askLeader(ctx, [], null);
