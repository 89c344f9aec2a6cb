import { competenceOf } from '../individual/competence';
import type { AgentView } from '../individual/agent-view';

/**
 * Style overlap O[i][j]: the cosine of two agents' competence vectors over the given niches
 * (unseen niches at c0). Derived from competence every time, never stored. 1 for identical
 * profiles; 0 when either vector is all zeros.
 */
export function styleOverlap(a: AgentView, b: AgentView, niches: readonly string[], c0: number): number {
  return vectorOverlap(competenceVector(a, niches, c0), competenceVector(b, niches, c0));
}

/** An agent's competence over a list of niches (unseen at c0), with its sum of squares: for many overlaps of one roster. */
export interface CompetenceVector {
  readonly c: Float64Array;
  /** Sum of squares, summed in the niches' order (as `styleOverlap` sums it). */
  readonly ss: number;
}

/** `a`'s competence vector over `niches`. */
export function competenceVector(a: AgentView, niches: readonly string[], c0: number): CompetenceVector {
  const c = new Float64Array(niches.length);
  let ss = 0;
  for (let i = 0; i < niches.length; i++) {
    const x = competenceOf(a, niches[i]!, c0);
    c[i] = x;
    ss += x * x;
  }
  return { c, ss };
}

/**
 * The cosine of two competence vectors over the same niches (`styleOverlap` of their agents): a
 * roster's vectors are read once and serve every pair.
 */
export function vectorOverlap(a: CompetenceVector, b: CompetenceVector): number {
  let dot = 0;
  for (let i = 0; i < a.c.length; i++) dot += a.c[i]! * b.c[i]!;
  return a.ss === 0 || b.ss === 0 ? 0 : dot / Math.sqrt(a.ss * b.ss);
}

/**
 * A roster's competence vectors over the same niches, one row per agent in one array: what the
 * roles assembler reads for every pair it scores (a row and an array per agent, each task, was
 * the largest allocation of a 256-agent run).
 */
export interface CompetenceMatrix {
  /**
   * Row x is agent x's competence over the niches: `c[x * niches + i]`. Plain arrays of doubles,
   * on V8's heap: a typed array this size lives in its own malloc'ed buffer, and one a task per
   * roster left the process's RSS growing twice as fast at 256 agents.
   */
  readonly c: readonly number[];
  /** Each row's sum of squares, summed in the niches' order. */
  readonly ss: readonly number[];
  readonly niches: number;
}

/** The competence vectors of `roster` over `niches` (as `competenceVector` of each agent). */
export function competenceMatrix(roster: readonly AgentView[], niches: readonly string[], c0: number): CompetenceMatrix {
  const m = niches.length;
  const c: number[] = [];
  const ss: number[] = [];
  for (let x = 0; x < roster.length; x++) {
    let s = 0;
    for (let i = 0; i < m; i++) {
      const v = competenceOf(roster[x]!, niches[i]!, c0);
      c.push(v);
      s += v * v;
    }
    ss.push(s);
  }
  return { c, ss, niches: m };
}

/** `vectorOverlap` of rows x and y of a matrix: the same operations in the same order, so the same number. */
export function matrixOverlap(mat: CompetenceMatrix, x: number, y: number): number {
  const { c, ss, niches: m } = mat;
  let dot = 0;
  for (let i = 0; i < m; i++) dot += c[x * m + i]! * c[y * m + i]!;
  return ss[x] === 0 || ss[y] === 0 ? 0 : dot / Math.sqrt(ss[x]! * ss[y]!);
}

/**
 * Each competence record's niches, as one shared list per distinct set of niches: a record is never
 * changed (an observation makes a new one), so it is listed once, and a roster of 256 agents that
 * have met the same niches yields one list to merge, not 256 (the roles assembler asks every task).
 */
const nichesOfRecord = new WeakMap<object, readonly string[]>();
const sharedLists = new Map<string, readonly string[]>();
/**
 * Distinct niche sets kept for sharing: at most 2^niches (64 for six niches), but an endless
 * stream over many niches could meet more; past this the table starts again (lists already handed
 * out stay valid, only their sharing is lost).
 */
const SHARED_LISTS_CAP = 4096;

function nichesOf(competence: Readonly<Record<string, number>>): readonly string[] {
  let list = nichesOfRecord.get(competence);
  if (list === undefined) {
    const keys = Object.keys(competence).sort();
    const id = keys.join('\u0000');
    list = sharedLists.get(id);
    if (list === undefined) {
      if (sharedLists.size >= SHARED_LISTS_CAP) sharedLists.clear();
      sharedLists.set(id, list = keys);
    }
    nichesOfRecord.set(competence, list);
  }
  return list;
}

/** Every niche any agent of the roster has a competence for, sorted (the overlap's vector space). */
export function rosterNiches(roster: readonly AgentView[]): string[] {
  const lists = new Set<readonly string[]>();
  for (const a of roster) lists.add(nichesOf(a.competence));
  const set = new Set<string>();
  for (const list of lists) for (const n of list) set.add(n);
  return [...set].sort();
}
