import { generate } from '../operators/generate';
import { answerUntilDecided } from '../operators/speculative';
import { vote } from '../operators/vote';
import type { Structure, StructureDescriptor } from './structure';

/**
 * Every member answers independently; the majority under the niche's answer equivalence wins, the
 * leader breaks ties. Members still answering once the majority is decided are cancelled
 * (speculative completion): they have no entry in `memberAnswers`.
 */
const run: Structure = async (ctx) => {
  const equivalent = (a: string, b: string) => ctx.grader.equivalent(a, b);
  const attempts = await answerUntilDecided(ctx.team.members.map((member) => (signal) =>
    generate({ ...ctx, member, experience: ctx.experience(member.agent.id), step: 'solve', index: 0, signal })), equivalent, ctx.options.speculative);
  const result = vote(attempts.map((a) => a.extracted), equivalent);
  const chosen = result.winnerIndex >= 0 ? attempts[result.winnerIndex]! : attempts[0]!;
  return {
    finalText: chosen.text || null,
    attempts,
    memberAnswers: Object.fromEntries(attempts.filter((a) => !a.cancelled).map((a) => [a.agentId, { text: a.text, extracted: a.extracted }])),
    disagreement: result.disagreement,
  };
};

/** The `voting` structure (how it works: `run` above). */
export const voting: StructureDescriptor = {
  name: 'voting',
  description: 'every member answers independently; the majority answer wins (you break ties).',
  choosable: true,
  run,
};
