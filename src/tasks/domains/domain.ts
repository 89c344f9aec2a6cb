import type { GraderOptions } from '../graders/grader-descriptor';
import type { Grader } from '../task';

/**
 * How replies of a domain give their answer: the format its niches' `answerFormat` asks for. The
 * simulated model writes and reads replies this way; a grader extracts answers its own way.
 */
export interface ReplyFormat {
  /** The end of a reply that gives `answer`; `applied`: the writer used a method it can point to. */
  write(answer: string, o: { readonly applied: boolean }): string;
  /** The answer a reply of this format gives (its last one), or null. */
  read(text: string): string | null;
  /** How an answer appears in a reply, to recognise it in a teammate's text. */
  marker(answer: string): string;
  /** Whether a reader can check the reply's work by reading it (a derivation, quoted evidence); code cannot be checked by reading. */
  checkable(text: string): boolean;
  /** An answer of the domain's shape that is surely wrong, for a task with no distractors. */
  readonly blank: string;
  /** Answers are numbers: a wrong one may be a near slip of the right one. */
  readonly numeric: boolean;
}

/** Settings a run gives every grader it creates (only the code grader reads them). */
export interface RunGraderSettings {
  readonly codeWorkers: number;
  readonly codeTimeoutMs: number;
  /** Grade code without bubblewrap when the host lacks it. */
  readonly allowUnsandboxed?: boolean;
  /** Keep code verdicts on disk in this directory too (verdict-disk.ts); unset: in memory only. */
  readonly verdictDir?: string;
}

/**
 * An answer domain (`math`, `code`, `qa`, …), described in one file: its name (the niche files'
 * `domain`), its grader, and the format its replies give answers in. The niche schema's domains,
 * the graders a run creates and the simulated model's answers all derive from the registry
 * (`src/tasks/domains/index.ts`, `registerDomain`).
 */
export interface DomainDescriptor {
  readonly name: string;
  /** A new grader for this domain; one that owns worker processes is stopped with its `close()`. */
  createGrader(settings: RunGraderSettings): Grader;
  readonly replies: ReplyFormat;
}

/** The grader options a run's settings give a grader that takes none beyond its defaults. */
export type { GraderOptions };
