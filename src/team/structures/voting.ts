import { generate } from '../operators/generate';
import { vote } from '../operators/vote';
import type { Structure, StructureDescriptor } from './structure';

/** Every member answers independently; the majority under the niche's answer equivalence wins, the leader breaks ties. */
const run: Structure = async (ctx) => {
  const attempts = await Promise.all(ctx.team.members.map((member) =>
    generate({ ...ctx, member, experience: ctx.experience(member.agent.id), step: 'solve', index: 0 })));
  const result = vote(attempts.map((a) => a.extracted), (a, b) => ctx.grader.equivalent(a, b));
  const chosen = result.winnerIndex >= 0 ? attempts[result.winnerIndex]! : attempts[0]!;
  return {
    finalText: chosen.text || null,
    attempts,
    memberAnswers: Object.fromEntries(attempts.map((a) => [a.agentId, { text: a.text, extracted: a.extracted }])),
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
