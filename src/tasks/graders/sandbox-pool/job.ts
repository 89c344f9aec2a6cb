/** A sandbox job and its result: the types the pool's parts and its callers share (code-sandbox.ts re-exports them). */
import type { ProbeCall, ProbeOutcome } from '../test-plan';

/** One candidate and what to run against it. */
export interface SandboxJob {
  readonly code: string;
  /** Statements run once after the candidate loads, before the probes (the tests' imports). */
  readonly setup?: string;
  /** Calls answered one at a time by the candidate's process; values come back as plain data. */
  readonly probes?: readonly ProbeCall[];
  /**
   * Arbitrary test programs, run in the trusted checker process (sandbox/sandbox_checker.py); each call
   * they make to a candidate function is answered, as plain data, by the candidate's process.
   */
  readonly scripts?: readonly string[];
  /**
   * The task's own definitions its tests call, as JSON `[source, entry point]` (code-grader.ts
   * `taskHelpers`): the checker runs them beside each script test, never the candidate's copies.
   */
  readonly helpers?: string;
}

/** Outcome of one script test. */
export interface TestOutcome {
  readonly test: string;
  readonly passed: boolean;
  /** Captured stdout/stderr plus the exception, truncated; or why the test did not run. */
  readonly output: string;
}

/** Outcome of one job. Exactly one per `run()` call, even when a worker dies mid-job. */
export interface SandboxResult {
  /** One per probe: its value or exception, or null when it never answered. */
  readonly probes: readonly (ProbeOutcome | null)[];
  /** One per script test. */
  readonly scripts: readonly TestOutcome[];
  /** Exception raised while defining the candidate (e.g. "SyntaxError: … (line 3)"), else null. */
  readonly loadError: string | null;
  /** The candidate used up its CPU time (or slept past the wall backstop) and was killed. */
  readonly timedOut: boolean;
  /** How the candidate process ended abnormally ("killed by SIGXCPU", "exited with status 3"), else null. */
  readonly exit: string | null;
  /** The candidate broke the report protocol (forged, extra or malformed record): everything fails. */
  readonly violation: string | null;
  /** Failure outside the candidate's normal run: worker crashed, stopped answering, pool closed. */
  readonly failure: string | null;
  /** True when `failure` is the harness's own (pool broken, sandbox error), not the candidate's doing. */
  readonly infrastructure: boolean;
  /**
   * Sources of nondeterminism the candidate's processes touched (`time`, `urandom`, `pid`,
   * `threads`; `unreported` when a process could not say: sandbox/sandbox_nondeterminism.py), sorted;
   * empty when none. The code grader runs a program that touched one twice (code-grader.ts).
   */
  readonly touched: readonly string[];
}

/** A job in the pool: the caller's job with its id, its resolver and where its relay stands. */
export interface Job extends Required<SandboxJob> {
  readonly id: number;
  readonly resolve: (r: SandboxResult) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** The checker's verdicts on the scripts, once it has run them. */
  checked?: unknown[];
  /**
   * Where the relay between worker and checker stands: `none` (no scripts), `loading` (the
   * worker is loading the candidate), `checking` (the checker runs the tests; `calling` while
   * one call awaits the candidate's answer, `callback` while the candidate's call waits on a
   * test's function the checker runs), `ending` (the final reply is due). A worker line that
   * does not fit the state fails the job: no message can be slipped in out of turn.
   */
  relay: 'none' | 'loading' | 'checking' | 'calling' | 'callback' | 'ending';
  /** The states under the current one while calls nest (a call-back calling the candidate again), innermost last. */
  readonly nested: ('checking' | 'calling' | 'callback')[];
}
