import { generate } from '../operators/generate';
import { vote } from '../operators/vote';
import type { Structure, StructureDescriptor } from './structure';

/** The leader samples `options.samples` answers independently; the majority (by answer equivalence) wins. */
const run: Structure = async (ctx) => {
  const member = ctx.team.members[0]!;
  const experience = ctx.experience(member.agent.id);
  const attempts = await Promise.all(
    Array.from({ length: Math.max(1, ctx.options.samples) }, (_, i) =>
      generate({ ...ctx, member, experience, step: 'sample', index: i })),
  );
  const result = vote(attempts.map((a) => a.extracted), (a, b) => ctx.grader.equivalent(a, b));
  const chosen = result.winnerIndex >= 0 ? attempts[result.winnerIndex]! : attempts[0]!;
  return {
    finalText: chosen.text || null,
    attempts,
    memberAnswers: { [member.agent.id]: { text: chosen.text, extracted: chosen.extracted } },
    disagreement: result.disagreement,
  };
};

/** The `self-consistency` structure (how it works: `run` above). */
export const selfConsistency: StructureDescriptor = {
  name: 'self-consistency',
  description: 'you answer several times independently; the majority answer wins.',
  choosable: false,
  run,
};
