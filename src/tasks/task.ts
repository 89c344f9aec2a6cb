/** The answer domains EvoChamber knows how to grade. */
/** An answer domain's name (`math`, `code`, `qa`, or one registered with `registerDomain`: src/tasks/domains/). */
export type Domain = string;

/**
 * What only the grader (and the simulated model's side channel) may see.
 * Never rendered into a prompt.
 */
export interface HiddenTask {
  /** Gold answer: a number/expression (math), a reference solution (code), an answer span (qa). */
  readonly answer: string;
  /** Alternative gold answers (qa: other acceptable spans). */
  readonly aliases?: readonly string[];
  /** Plausible wrong answers in the niche's answer format (code: buggy solutions). */
  readonly distractors: readonly string[];
  /** Code niches: hidden test statements (Python `assert` lines) run by the grader. */
  readonly tests?: readonly string[];
  /**
   * Code niches in completion form (HumanEval): the source a body-only answer completes. The
   * grader runs `prefix + answer` when the answer does not define the entry point itself.
   */
  readonly prefix?: string;
  /**
   * Code niches: source the task defines for its tests (MBPP's `test_setup_code`). Like the
   * helpers of `prefix`, the checker runs it beside the tests: names it binds are never the candidate's.
   */
  readonly setup?: string;
}

/** One unit of work in a stream. `question` and `publicTests` are all an agent ever sees. */
export interface Task {
  /** Stable id, unique within a run (e.g. `arithmetic-0007`). */
  readonly id: string;
  /** Position in the stream, 0-based. */
  readonly index: number;
  readonly niche: string;
  readonly domain: Domain;
  /** 1 (easy) .. 5 (hardest); built-in niches use 1..3. */
  readonly difficulty: number;
  /** Block number for block streams (0-based); 0 otherwise. */
  readonly block: number;
  /** The problem statement shown to agents. */
  readonly question: string;
  /** Code niches: the Python function name the candidate must define. */
  readonly entryPoint?: string;
  /** Code niches: example tests agents may see and critics may run. */
  readonly publicTests?: readonly string[];
  readonly hidden: HiddenTask;
}

/** Outcome of grading one candidate answer. `reward` is in [0, 1], higher is better. */
export interface Grade {
  readonly reward: number;
  /** True when the candidate counts as solved: math/code reward 1, qa exact match after normalization. */
  readonly correct: boolean;
  /** The answer the grader extracted from the raw completion, or null if none was found. */
  readonly extracted: string | null;
  /** Short human-readable reason (e.g. "2/5 tests failed", "no \\boxed{} answer"). */
  readonly detail: string;
  /**
   * Code: the verdict varied between two runs of the program (graders/nondeterminism.ts); this
   * grade is the first run's and was not cached. Absent otherwise.
   */
  readonly flaky?: true;
}

/**
 * A grader scores a raw model completion against a task's hidden gold.
 * Contract: never throws for one bad candidate (a crash, timeout or garbage is a reward-0 Grade);
 * deterministic for the same candidate and task.
 */
export interface Grader {
  grade(completion: string, task: Task): Promise<Grade>;
  /** Extract the final answer from a raw completion (think blocks, fences, \\boxed{} ...). */
  extract(completion: string): string | null;
  /**
   * Whether a reply cut off by the token limit still holds an answer it had committed to (a closed
   * box or code block), never a fallback the cut left by chance (graders/cut-off-answer.ts). Absent:
   * a cut-off reply holds none. The truncation policy reads it (docs/backends.md, "Truncated replies").
   */
  holdsAnswerWhenCut?(completion: string): boolean;
  /** Answer equivalence used for majority voting and disagreement. */
  equivalent(a: string, b: string): boolean;
  /** Release pooled resources (worker processes). Idempotent. */
  close?(): Promise<void>;
}
