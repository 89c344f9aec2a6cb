import type { Attempt } from './generate';
import { majorityDecided } from './vote';

/** One independent answer call, cancellable through `signal`. */
export type AnswerCall = (signal: AbortSignal) => Promise<Attempt>;

/**
 * Operator: speculative completion of a vote. Issues every call at once and tallies the answers
 * as they arrive (under `equivalent`); as soon as the majority is decided (`majorityDecided`) it
 * aborts the outstanding calls through one AbortController. Resolves when every call has settled,
 * with the attempts in call order: an answer that finished anyway is kept, a cancelled call is an
 * attempt with `cancelled` and no answer. A vote over the result picks the class a full vote
 * would have. With a backend that answers at once (the in-process simulator) every call has
 * finished before the first tally, so nothing is cancelled. Which calls finish before the abort
 * depends on the servers' timing: over real servers a run with speculation is not reproducible
 * call for call, so it can be switched off.
 */
export async function answerUntilDecided(
  calls: readonly AnswerCall[], equivalent: (a: string, b: string) => boolean, speculative = true,
): Promise<Attempt[]> {
  const ctl = new AbortController();
  // Off (`structures.speculative: false`): every call runs to the end, as a full vote.
  if (!speculative) return Promise.all(calls.map((call) => call(ctl.signal)));
  const answers: (string | null | undefined)[] = calls.map(() => undefined);
  return Promise.all(calls.map((call, i) => call(ctl.signal).then((a) => {
    answers[i] = a.cancelled ? null : a.extracted;
    if (!ctl.signal.aborted && majorityDecided(answers, equivalent)) ctl.abort();
    return a;
  })));
}
