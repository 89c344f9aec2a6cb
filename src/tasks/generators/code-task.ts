import type { Rng } from '../../core/rng';
import type { GeneratedTask } from '../niche';

/**
 * Shared machinery for the Python function niches: a problem is a description, a reference
 * body, buggy bodies and a TypeScript model of the function; this file turns one into a task
 * with public examples and hidden asserts whose expected values come from the model.
 */

/** A value that can be written as a Python literal. */
export type PyValue = number | string | boolean | null | readonly PyValue[];

/** One drawn instance of a problem (constants such as a threshold are already fixed). */
export interface CodeInstance {
  /** Completes "Write a Python function `f(xs)` that …", edge-case behaviour included. */
  readonly text: string;
  /** Reference function body (lines indented by four spaces). */
  readonly body: string;
  /** Buggy bodies; each must fail at least one of the edge cases below. */
  readonly bugs: readonly string[];
  /** TypeScript model of the reference, used to compute expected values. */
  readonly run: (args: readonly PyValue[]) => PyValue;
  /** Fixed argument lists that expose the bugs; always part of the hidden tests. */
  readonly edge: readonly (readonly PyValue[])[];
  /** A random argument list. */
  readonly input: (rng: Rng) => readonly PyValue[];
}

/** A function-writing problem: name choices, parameter names and a way to draw an instance. */
export interface CodeProblem {
  readonly names: readonly string[];
  readonly params: readonly string[];
  readonly make: (rng: Rng) => CodeInstance;
}

const HIDDEN_TESTS = 7;

/** Indent each line by four spaces to form a function body. */
export function body(...lines: string[]): string {
  return lines.map((l) => `    ${l}`).join('\n');
}

/** Render a value as a Python literal (JSON string escapes are valid Python too). */
export function pyLiteral(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  return `[${v.map(pyLiteral).join(', ')}]`;
}

/** Uniform integer in [lo, hi]. */
export const int = (rng: Rng, lo: number, hi: number): number => lo + rng.int(hi - lo + 1);

/** A random list of ints with length in [minLen, maxLen] and values in [lo, hi]. */
export function intList(rng: Rng, minLen: number, maxLen: number, lo: number, hi: number): number[] {
  return Array.from({ length: int(rng, minLen, maxLen) }, () => int(rng, lo, hi));
}

/** Build a code task: hidden tests are the edge cases plus fresh random cases; examples never repeat them. */
export function buildCodeTask(difficulty: number, problem: CodeProblem, rng: Rng): GeneratedTask {
  const name = rng.pick(problem.names);
  const inst = problem.make(rng);
  const signature = `${name}(${problem.params.join(', ')})`;
  const assertFor = (args: readonly PyValue[]): string =>
    `assert ${name}(${args.map(pyLiteral).join(', ')}) == ${pyLiteral(inst.run(args))}`;

  const seen = new Set<string>();
  const hidden: string[] = [];
  const pub: string[] = [];
  const push = (into: string[], args: readonly PyValue[]): void => {
    const t = assertFor(args);
    if (!seen.has(t)) {
      seen.add(t);
      into.push(t);
    }
  };
  for (const args of inst.edge) push(hidden, args);
  // Bounded draws: tiny input spaces (e.g. short strings) may not yield enough fresh cases.
  for (let i = 0; i < 200 && (hidden.length < HIDDEN_TESTS || pub.length < 2); i++) {
    push(hidden.length < HIDDEN_TESTS ? hidden : pub, inst.input(rng));
  }
  if (pub.length < 2) throw new Error(`code task ${name}: could not draw two distinct public examples`);

  const def = (b: string): string => `def ${signature}:\n${b}\n`;
  const question = [
    `Write a Python function \`${signature}\` that ${inst.text}`,
    '',
    'For example:',
    ...pub.map((t) => `    ${t}`),
  ].join('\n');
  return {
    difficulty,
    question,
    entryPoint: name,
    publicTests: pub,
    hidden: { answer: def(inst.body), distractors: inst.bugs.map(def), tests: hidden },
  };
}
