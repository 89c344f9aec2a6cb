import { generate } from '../operators/generate';
import { vote } from '../operators/vote';
import type { Structure } from './structure';

/** Every member answers independently; the majority under the niche's answer equivalence wins, the leader breaks ties. */
export const voting: Structure = async (ctx) => {
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
