import { inSpan } from '../../core/tracing/tracing';
import { ATTR_ROUND } from '../../core/tracing/semconv';
import { generate, type Attempt } from '../operators/generate';
import { vote } from '../operators/vote';
import { reviseDebatePrompt } from '../team-prompts';
import { memberContext, type Structure, type StructureDescriptor } from './structure';

/**
 * An independent round, then `debateRounds` rounds in which each member sees the others' latest
 * answers and revises its own; it stops early once every member gives an equivalent answer, and
 * reports the rounds it skipped (`earlyStop`), or once a member's call failed (the task is then a failure). The final round is decided by majority (leader breaks ties).
 */
/** The independent round's span when tracing is on (--otel). */
const round = <T>(name: string, fn: () => Promise<T>): Promise<T> => inSpan(`round ${name}`, { [ATTR_ROUND]: 0 }, fn);

const run: Structure = async (ctx) => {
  const members = ctx.team.members;
  const all: Attempt[] = [];
  let latest = await round('solve', () => Promise.all(members.map((member) =>
    generate({ ...ctx, member, experience: ctx.experience(member.agent.id), step: 'solve', index: 0 }))));
  all.push(...latest);
  // A member call out of retries fails the task whatever follows (task-run's solveFailure): no more rounds are asked for.
  const failed = () => latest.some((a) => a.error !== undefined);
  let roundsRun = 0;
  for (let round = 1; round <= ctx.options.debateRounds && !failed(); round++) {
    roundsRun = round;
    const previous = latest;
    latest = await inSpan(`round debate-${round}`, { [ATTR_ROUND]: round }, () => Promise.all(members.map((member, i) => generate({
      ...ctx, member, experience: ctx.experience(member.agent.id), step: `debate-${round}`, index: 0,
      messages: reviseDebatePrompt(memberContext(ctx, member), previous[i]!.text, previous.filter((_, j) => j !== i).map((a) => a.text), round),
    }))));
    all.push(...latest);
    // Nothing left to argue about once every member gives an equivalent answer.
    if (!vote(latest.map((a) => a.extracted), (a, b) => ctx.grader.equivalent(a, b)).disagreement && latest.every((a) => a.extracted !== null)) break;
  }
  const result = vote(latest.map((a) => a.extracted), (a, b) => ctx.grader.equivalent(a, b));
  const chosen = result.winnerIndex >= 0 ? latest[result.winnerIndex]! : latest[0]!;
  const roundsSkipped = failed() ? 0 : Math.max(0, ctx.options.debateRounds - roundsRun);
  const lastRoundTokens = latest.reduce((n, a) => n + a.usage.completionTokens, 0);
  return {
    finalText: chosen.text || null,
    attempts: all,
    memberAnswers: Object.fromEntries(latest.map((a) => [a.agentId, { text: a.text, extracted: a.extracted }])),
    disagreement: result.disagreement,
    ...(roundsSkipped > 0 ? { earlyStop: { roundsSkipped, tokensSaved: roundsSkipped * lastRoundTokens } } : {}),
  };
};

/** The `debate` structure (how it works: `run` above). */
export const debate: StructureDescriptor = {
  knobs: [{ kind: 'int', path: 'structures.debateRounds', min: 1, max: 4, description: 'revision rounds after the independent round' }],
  name: 'debate',
  description: 'members answer, then see each other\'s answers and revise for {{rounds}} rounds; the majority wins.',
  choosable: true,
  run,
};
