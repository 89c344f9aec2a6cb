import { generate } from '../operators/generate';
import { review, testPublic } from '../operators/review';
import { reviseFeedbackPrompt } from '../team-prompts';
import { memberContext, type Structure, type StructureDescriptor } from './structure';

/**
 * The leader generates; every other member reviews the answer (code: with the public-test
 * results in front of them); if any reviewer rejects it, the leader revises once with all feedback
 * (and, for code, the same public-test results).
 */
const run: Structure = async (ctx) => {
  const [leader, ...critics] = ctx.team.members;
  const first = await generate({ ...ctx, member: leader!, experience: ctx.experience(leader!.agent.id), step: 'solve', index: 0 });
  const tests = await testPublic(ctx.grader, ctx.task, first.text);
  const reviews = await Promise.all(critics.map((c, i) => review(ctx.model, ctx.task, c, memberContext(ctx, c), first.text, tests, i)));
  const rejected = reviews.filter((r) => r.verdict === 'incorrect');
  const attempts = [first, ...reviews.map((r) => r.attempt)];
  let final = first;
  if (rejected.length > 0) {
    final = await generate({
      ...ctx, member: leader!, experience: ctx.experience(leader!.agent.id), step: 'revise', index: 0,
      messages: reviseFeedbackPrompt(memberContext(ctx, leader!), first.text, rejected.map((r) => r.feedback), tests),
    });
    attempts.push(final);
    // A failed revision keeps the first answer rather than losing it.
    if (final.extracted === null && first.extracted !== null) final = first;
  }
  return {
    finalText: final.text || null,
    attempts,
    memberAnswers: { [leader!.agent.id]: { text: final.text, extracted: final.extracted } },
    disagreement: rejected.length > 0,
  };
};

/** The `generator-critic` structure (how it works: `run` above). */
export const generatorCritic: StructureDescriptor = {
  name: 'generator-critic',
  description: 'you answer, the others review your answer (code: they run the public tests), you revise.',
  choosable: true,
  run,
};
