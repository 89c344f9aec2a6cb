import { generate } from '../operators/generate';
import { answerUntilDecided } from '../operators/speculative';
import { vote } from '../operators/vote';
import type { Structure, StructureDescriptor } from './structure';

/**
 * The leader samples `options.samples` answers independently; the majority (by answer
 * equivalence) wins. Samples still running once the majority is decided are cancelled
 * (speculative completion).
 */
const run: Structure = async (ctx) => {
  const member = ctx.team.members[0]!;
  const experience = ctx.experience(member.agent.id);
  const equivalent = (a: string, b: string) => ctx.grader.equivalent(a, b);
  const attempts = await answerUntilDecided(
    Array.from({ length: Math.max(1, ctx.options.samples) }, (_, i) => (signal: AbortSignal) =>
      generate({ ...ctx, member, experience, step: 'sample', index: i, signal })),
    equivalent,
    ctx.options.speculative,
  );
  const result = vote(attempts.map((a) => a.extracted), equivalent);
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
  knobs: [{ kind: 'int', path: 'structures.samples', min: 3, max: 9, description: 'independent samples the majority is taken over' }],
  name: 'self-consistency',
  description: 'you answer several times independently; the majority answer wins.',
  choosable: false,
  run,
};
