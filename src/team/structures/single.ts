import { generate } from '../operators/generate';
import type { Structure, StructureDescriptor } from './structure';

/** The leader answers alone, once. */
const run: Structure = async (ctx) => {
  const member = ctx.team.members[0]!;
  const attempt = await generate({ ...ctx, member, experience: ctx.experience(member.agent.id), step: 'solve', index: 0 });
  return {
    finalText: attempt.text || null,
    attempts: [attempt],
    memberAnswers: { [member.agent.id]: { text: attempt.text, extracted: attempt.extracted } },
    disagreement: false,
  };
};

/** The `single` structure (how it works: `run` above). */
export const single: StructureDescriptor = {
  name: 'single',
  description: 'you answer alone, once.',
  choosable: false,
  run,
};
