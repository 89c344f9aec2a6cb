import { criticBaseOf } from '../sim-params';
import { ownKnowledge } from '../prompt-reader';
import type { Responder } from './responder';
import { goldMarker } from './solve-responder';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Answers a review prompt with `{"verdict", "feedback"}`. Failing public tests in the prompt are
 * read as proof of a wrong answer. Otherwise the reviewer judges correctly with probability
 * σ(criticBase[domain] + criticCoverage·coverage of the task's strategies in its OWN knowledge);
 * when it rejects, its feedback names the required strategies it knows, which a revising
 * generator can then use.
 */
export const reviewResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  if (!entry) return { text: '{"verdict": "correct", "feedback": "I cannot judge this."}', lengthClass: 'json' };
  const { task } = entry;
  const candidate = prompt.sections.get('candidate answer') ?? '';
  const tests = prompt.sections.get('public test results');
  const right = candidate.includes(goldMarker(task));
  const required = world.required(task.niche, task.id, task.difficulty, task.question);
  const known = new Set(world.mentioned(ownKnowledge(prompt)).map((s) => s.phrase));
  const coverage = required.filter((s) => known.has(s.phrase)).length / required.length;
  let verdict: 'correct' | 'incorrect';
  if (tests !== undefined && /FAILED|ERROR|No Python function/.test(tests)) verdict = 'incorrect';
  else {
    const judgedRight = rng.chance(sigmoid(criticBaseOf(params, task.domain) + params.criticCoverage * coverage));
    verdict = judgedRight === right ? 'correct' : 'incorrect';
  }
  let feedback = 'The answer follows from the statement.';
  if (verdict === 'incorrect') {
    const inCandidate = new Set(world.mentioned(candidate).map((s) => s.phrase));
    const tips = required.filter((s) => known.has(s.phrase) && !inCandidate.has(s.phrase));
    feedback = tips.length
      ? `This looks wrong. Use the ${tips.map((s) => `${s.phrase} (${s.gloss})`).join(' and the ')}.`
      : 'This looks wrong; re-check the last step against the statement.';
  }
  if (rng.chance(params.malformed)) return { text: `Verdict - ${verdict}`, lengthClass: 'json' };
  return { text: JSON.stringify({ verdict, feedback }), lengthClass: 'json' };
};
