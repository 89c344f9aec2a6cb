/**
 * Math grader: final-answer extraction from raw completions, then exact / numeric / symbolic
 * equivalence against the hidden gold answer. Reward is 1 or 0.
 */
import { createRequire } from 'node:module';
import type { Grade, Grader, Task } from '../task';
import { LruMap } from '../../core/lru-map';
import { createRng } from '../../core/rng';
import { stripThinking } from '../../core/text';
import { finishedLines, lastBoxedAt } from './answer-text';
import { normalizeMathAnswer } from './math-normalize';
import { afterRetraction, boxIsAmbiguous, dropRemarks, isRemark, lastOfChain, statesSeveral, unifyMinus } from './math-statement';
import type { GraderDescriptor } from './grader-descriptor';

type MathJs = typeof import('mathjs');
let mathjs: MathJs | undefined;
/** mathjs takes seconds to load, so only runs that grade math load it (every CLI start used to pay). */
const math = (): MathJs => (mathjs ??= createRequire(import.meta.url)('mathjs') as MathJs);
/** Only the last 64 KiB of a completion are searched for its final answer (it comes last). */
export const MAX_ANSWER_TEXT = 64 * 1024;
const tail = (s: string, n: number): string => (s.length > n ? s.slice(-n) : s);
/** mathjs only ever sees strings this short: long inputs could make parse/simplify crawl. */
const MAX_PARSE = 200;
/**
 * Relative tolerance, used only where an answer or gold is itself a decimal (a rounded value):
 * double rounding only (`0.1000000001` is not 0.1; `\sqrt{3}/2` is 0.8660254037844386). Integers
 * and fractions always compare exactly.
 */
const REL_TOL = 1e-12;
/** Relative tolerance between two 64-digit evaluations of exact inputs (roots, logs): rounding only. */
const PRECISE_TOL = 1e-40;
/** Values beyond this (in doubles) are not evaluated exactly: their exact forms can take minutes. */
const MAX_EXACT_MAGNITUDE = 1e300;
/** simplify() only runs when both sides together are this short (see symbolicEqual). */
const MAX_SIMPLIFY = 40;
/** Longer letter runs are words, not products of variables; more variables is not an answer. */
const MAX_NAME = 4;
const MAX_VARS = 6;
/** Names mathjs may see as functions/constants; every other identifier is split into variables. */
const KNOWN_NAMES = new Set(['sqrt', 'nthRoot', 'pi', 'e', 'i', 'Infinity', 'log', 'exp', 'sin', 'cos', 'tan', 'abs']);
const FUNCTIONS = new Set(['sqrt', 'nthRoot', 'log', 'exp', 'sin', 'cos', 'tan', 'abs']);
/**
 * Points at which two expressions with variables are compared. They are rationals drawn from an rng
 * seeded by the two expressions (so grading is deterministic, yet no answer can be fitted to points
 * known in advance), and many of them: a wrong polynomial of degree < POINTS cannot agree at all.
 */
const POINTS = 24;

// Single character classes between the parts keep these linear on adversarial whitespace runs.
const ANSWER_PHRASE = /(?:final\s+answer|answer)[ \t*]*(?::|is\b)[\s*]*([^\n]+)/gi;
const HASH_LINE = /^[ \t]*####[ \t]*([^\n]+)/gm;
/**
 * A minus after a word or `)` is subtraction or a range ("2-5"), not a sign. A sign may stand
 * before a currency symbol (`-$10`, `−$10`, `-\$10`): it still belongs to the number.
 */
const NUMBER = /(?:(?<![\w)])[-\u2212])?(?:\\?\$[ \t]?)?(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[\u2009\u202f\u00a0]\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+(?![\d.]))?(?:\s*\/\s*\d+(?:\.\d+)?)?/g;

/**
 * "…, actually it's 3", "it is actually 3", "that's actually 3": a correction that states a value.
 * The frame around `actually` is required, so "this is actually 3 times 4" states nothing.
 */
const ACTUALLY = /\b(?:it'?s|it\s+is|that'?s|that\s+is|answer'?s|answer\s+is|result\s+is)[ \t]+actually\b[ \t,:]*([^\n]+)|\bactually[, \t]+(?:it'?s|it\s+is|it\s+should\s+be)\b[ \t:]*([^\n]+)/gi;

/** "answer is X" / "answer: X" inside one stated line, to peel "Final Answer: The final answer is 3". */
const ANSWER_IN_LINE = /(?:final\s+answer|answer)[ \t*]*(?::|is\b)[\s*]*(.+)$/i;

/** The leading math of a stated answer: it stops at the first word ("3 apples" is 3; `\frac`, sqrt, `2xy` are math). */
function mathPrefix(line: string): string {
  let end = line.length;
  for (const w of line.matchAll(/(?<![\\\w^])[a-zA-Z]{2,}/g)) {
    if (KNOWN_NAMES.has(w[0])) continue;
    end = w.index;
    break;
  }
  return line.slice(0, end).replace(/[\s.;,:=]+$/, '').trim();
}

/** A value a reply states as its answer: it has a digit or a LaTeX command, or is one short expression. */
const statesValue = (s: string): boolean => /\d|\\/.test(s) || /^[a-zA-Z](?:[ \t]*[-+*/^][ \t]*[\w()]+)*$/.test(s);

/**
 * The last answer a reply states in `text` (the text after its last box): an answer line ("the
 * answer is 3", "Answer: 3", "the final answer is 3"), a correction ("it's actually 3") or a `####`
 * line; null when it states none. Only values count: "the answer is correct" states nothing.
 */
function statedAfterBox(text: string): string | null {
  const stated: { at: number; value: string }[] = [];
  const consider = (m: RegExpMatchArray, raw: string | undefined): void => {
    let line = readLine(raw ?? '');
    for (let peel = 0, inner = ANSWER_IN_LINE.exec(line); inner && peel < 3; peel++, inner = ANSWER_IN_LINE.exec(line)) line = readLine(inner[1] ?? '');
    const value = mathPrefix(line);
    const valueAt = m.index! + m[0].length - (raw ?? '').length;
    // A remark about another answer, a comparison or a parenthetical is commentary: the box stands.
    if (isRemark(text, m.index!, valueAt + (raw ?? '').indexOf(value) + value.length)) return;
    if (statesSeveral(line)) stated.push({ at: m.index!, value: '' });
    else if (value !== '' && statesValue(value)) stated.push({ at: m.index!, value: lastOfChain(value) });
  };
  for (const m of text.matchAll(ANSWER_PHRASE)) consider(m, m[1]);
  for (const m of text.matchAll(ACTUALLY)) consider(m, m[1] ?? m[2]);
  for (const m of text.matchAll(HASH_LINE)) consider(m, m[1]);
  stated.sort((a, b) => a.at - b.at);
  return stated.pop()?.value ?? null;
}

/** An answer line as a person reads it: cleaned, a retraction followed, remarks dropped. */
function readLine(raw: string): string {
  return cleanLine(dropRemarks(afterRetraction(raw)));
}

/** A stated line's value: '' (no answer) when it states several, else the last of a chain. */
function lineValue(line: string): string {
  return statesSeveral(line) ? '' : lastOfChain(line);
}

/**
 * The final answer in a raw completion: the last one it states. That is the last `\boxed{}`, unless
 * the text after it states an answer again ("Wait, actually the answer is 3"), which then counts
 * (a restatement of the same value grades the same); else an answer line, else the last number.
 */
export function extractMathAnswer(completion: string): string | null {
  const text = unifyMinus(tail(stripThinking(completion), MAX_ANSWER_TEXT));
  if (text === '') return null;
  const box = lastBoxedAt(text);
  if (box !== null && box.content !== '') {
    const after = statedAfterBox(text.slice(box.end));
    if (after !== null) return after === '' ? null : after;
    return boxIsAmbiguous(text) ? null : box.content;
  }
  const hash = [...text.matchAll(HASH_LINE)].pop()?.[1];
  if (hash !== undefined && readLine(hash) !== '') return lineValue(readLine(hash)) || null;
  for (const m of [...text.matchAll(ANSWER_PHRASE)].reverse()) {
    if (isRemark(text, m.index, m.index + m[0].length)) continue;
    const line = readLine(m[1] ?? '');
    if (/\d|\\/.test(line) || (line.length > 0 && line.length <= 12 && !/\s/.test(line))) return lineValue(line) || null;
  }
  const numbers = [...text.matchAll(NUMBER)];
  const lastMatch = numbers.pop();
  const last = lastMatch?.[0];
  if (last === undefined) return null;
  // The last statement naming two values joined by "or" (`Final: 3 or 4`) gives no answer.
  const lineStart = text.lastIndexOf('\n', lastMatch!.index) + 1;
  if (statesSeveral(text.slice(lineStart, lastMatch!.index! + last.length))) return null;
  const percent = /^\\?%/.test(text.slice(lastMatch!.index! + last.length)) ? '%' : '';
  return last.replace(/\s+/g, '').replace(/\\?\$/, '').replace('\u2212', '-') + percent;
}

/** Trim prose around an answer line: markdown bold, math delimiters, a trailing explanation. */
function cleanLine(line: string): string {
  let s = (line.split(/\.\s|\s(?:because|since|which|so that)\b/)[0] ?? '')
    .replace(/\*\*/g, '')
    .replace(/(?<!\\)\$/g, '') // math delimiters; an escaped `\$` is a currency sign, kept for normalization
    .trim();
  // Peel delimiters and punctuation in any order: `\(x=3\).`, `42.`
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/^\\\(|\\\)$/g, '').replace(/[.;,]+$/, '').trim();
  }
  return s;
}

/** The gold answer; a GSM8K-style full solution (`#### 72`) or a `\boxed{}` one is reduced first. */
function goldAnswer(answer: string): string {
  return /\\boxed|\\fbox|####/.test(answer) ? (extractMathAnswer(answer) ?? answer) : answer;
}

interface ParsedExpr {
  readonly expr: string;
  readonly vars: Set<string>;
}

/** mathjs-ready expression with explicit multiplication, or null when it is not safely parseable. */
function toMathjs(norm: string): ParsedExpr | null {
  if (norm.length === 0 || norm.length > MAX_PARSE) return null;
  const tokens = norm.match(/\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+|[a-zA-Z_]\w*|[-+*/^(),]|\S/g) ?? [];
  const out: string[] = [];
  const vars = new Set<string>();
  let prev: 'value' | 'func' | 'op' = 'op';
  for (const tok of tokens) {
    let kind: 'value' | 'func' | 'op' | 'open' | 'close';
    let pieces: string[];
    if (/^[\d.]/.test(tok)) { kind = 'value'; pieces = [tok]; }
    else if (/^[a-zA-Z_]/.test(tok)) {
      if (FUNCTIONS.has(tok)) { kind = 'func'; pieces = [tok]; }
      else if (KNOWN_NAMES.has(tok)) { kind = 'value'; pieces = [tok]; }
      else {
        // LaTeX convention: `xy` is x·y. Underscores and digits inside names are not math answers.
        if (!/^[a-zA-Z]+$/.test(tok) || tok.length > MAX_NAME) return null;
        kind = 'value';
        pieces = tok.split('');
        for (const v of pieces) vars.add(v);
        pieces = [pieces.join('*')];
      }
    } else if (tok === '(') { kind = 'open'; pieces = [tok]; }
    else if (tok === ')') { kind = 'close'; pieces = [tok]; }
    else if ('+-*/^,'.includes(tok)) { kind = 'op'; pieces = [tok]; }
    else return null; // `!`, `=`, `<`, leftover LaTeX: not something to evaluate.
    // Juxtaposition means multiplication; making it explicit stops `x(x+1)` parsing as a call.
    if (prev === 'value' && (kind === 'value' || kind === 'func' || kind === 'open')) out.push('*');
    out.push(...pieces);
    prev = kind === 'open' ? 'op' : kind === 'close' ? 'value' : kind;
  }
  for (const v of vars) if (v === 'e' || v === 'i') vars.delete(v);
  return vars.size > MAX_VARS ? null : { expr: out.join(''), vars };
}

/** An exact rational `num/den` (den > 0), and whether it was written as a decimal (a rounded value). */
interface Rational {
  readonly num: bigint;
  readonly den: bigint;
  readonly decimal: boolean;
}

const LITERAL = /^[-+]?\d+(?:\.\d+)?$/;
const gcd = (a: bigint, b: bigint): bigint => { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) [a, b] = [b, a % b]; return a; };

function literal(s: string): Rational | null {
  if (!LITERAL.test(s) || s.length > 400) return null;
  const neg = s.startsWith('-');
  const body = s.replace(/^[-+]/, '');
  const [int, frac = ''] = body.split('.');
  const num = BigInt(int! + frac) * (neg ? -1n : 1n);
  return { num, den: 10n ** BigInt(frac.length), decimal: frac.length > 0 };
}

/** `7`, `-0.25`, `3/4`, `(3)/(4)`, `-(3)/(4)` as an exact rational; null for anything else. */
export function exactRational(norm: string): Rational | null {
  const m = /^([-+]?)\(?([-+]?[\d.]+)\)?(?:\/\(?([-+]?[\d.]+)\)?)?$/.exec(norm);
  if (!m) return null;
  const a = literal(m[2]!);
  const b = m[3] === undefined ? { num: 1n, den: 1n, decimal: false } : literal(m[3]);
  if (!a || !b || b.num === 0n) return null;
  let num = a.num * b.den * (m[1] === '-' ? -1n : 1n);
  let den = a.den * b.num;
  if (den < 0n) { num = -num; den = -den; }
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g, decimal: a.decimal || b.decimal };
}

const toNumber = (r: Rational): number => Number(r.num) / Number(r.den);

/**
 * When two values may differ by REL_TOL: `either` (two answers compared with each other, as votes
 * are) when either side is a decimal, a rounded value; `gold` (an answer against its gold) only when
 * the gold itself is decimal. So `1000000001` is not gold `1000000000`, `42.00000004` is not 42, and
 * `1.4142135623` is not gold `\sqrt{2}`; `\sqrt{3}/2` is gold `0.8660254037844386`.
 */
type Tolerance = 'either' | 'gold';
const rounded = (tol: Tolerance, aDecimal: boolean, bDecimal: boolean): boolean => (tol === 'gold' ? bDecimal : aDecimal || bDecimal);

/** Two rationals: exactly equal, or within REL_TOL where `tol` allows rounding. */
function rationalEqual(a: Rational, b: Rational, tol: Tolerance): boolean {
  if (a.num * b.den === b.num * a.den) return true;
  return rounded(tol, a.decimal, b.decimal) && close(toNumber(a), toNumber(b));
}

type Compiled = { evaluate: (scope?: Record<string, unknown>) => unknown };
type Kind = 'number' | 'fraction' | 'bignumber';
const PI_64 = '3.141592653589793238462643383279502884197169399375105820974944592';
const E_64 = '2.718281828459045238360287471352662497757247093699959574966967628';
/**
 * Compiled expressions kept per process (by expression and kind), least recently used out first:
 * grading compares the same answers many times within a task, while a stream's answers keep
 * changing. A compiled expression holds mathjs's node tree and closures, a few KiB.
 */
export const COMPILED_CAPACITY = 512;
const compiled = new LruMap<string, Compiled | null>(COMPILED_CAPACITY);

/** Compiled expressions held now (tests: the cache stays within COMPILED_CAPACITY). */
export const compiledExpressions = (): number => compiled.size;

/**
 * The expression compiled for one kind of arithmetic: its number literals (and pi, e) become
 * mathjs Fractions (exact: + − × ÷ and integer powers stay exact) or 64-digit BigNumbers. The
 * default mathjs instance computes with either type, so no second instance is built.
 */
function compile(expr: string, kind: Kind): Compiled | null {
  const key = `${kind}\u0000${expr}`;
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  try {
    const m = math();
    let node = m.parse(expr);
    if (kind !== 'number') {
      const big = (v: string | number) => (kind === 'fraction' ? m.fraction(v as number) : m.bignumber(v));
      node = node.transform((n) => {
        const c = n as unknown as { isConstantNode?: boolean; isSymbolNode?: boolean; value?: unknown; name?: string };
        if (c.isConstantNode && typeof c.value === 'number') {
          // Integers beyond 2^53 were already rounded by the parser: no exact value to keep.
          if (!Number.isSafeInteger(c.value) && kind === 'fraction') throw new RangeError('inexact literal');
          return new m.ConstantNode(big(c.value));
        }
        if (kind === 'bignumber' && c.isSymbolNode && (c.name === 'pi' || c.name === 'e')) return new m.ConstantNode(m.bignumber(c.name === 'pi' ? PI_64 : E_64));
        return n;
      });
    }
    const c = node.compile() as Compiled;
    compiled.set(key, c);
    return c;
  } catch {
    compiled.set(key, null);
    return null;
  }
}

/** Exact value of an expression of rationals (+ − × ÷, integer powers) at a rational point; null otherwise. */
function fractionValue(expr: string, scope: Record<string, Rational> = {}): Rational | null {
  const c = compile(expr, 'fraction');
  if (!c) return null;
  try {
    const m = math();
    const s: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(scope)) s[k] = m.fraction(Number(v.num), Number(v.den));
    const v = c.evaluate(s) as { s?: unknown; n?: unknown; d?: unknown } | null;
    if (!m.isFraction(v)) return null;
    const f = v as unknown as { s: bigint | number; n: bigint | number; d: bigint | number };
    return { num: BigInt(f.s) * BigInt(f.n), den: BigInt(f.d), decimal: false };
  } catch {
    return null;
  }
}

/** 64-digit value of an expression at a rational point, as a mathjs BigNumber; null off the reals or on error. */
function preciseValue(expr: string, scope: Record<string, Rational> = {}): import('mathjs').BigNumber | null {
  const c = compile(expr, 'bignumber');
  if (!c) return null;
  try {
    const m = math();
    const s: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(scope)) s[k] = m.divide(m.bignumber(v.num.toString()), m.bignumber(v.den.toString()));
    const v = c.evaluate(s) as unknown;
    return m.isBigNumber(v) && v.isFinite() ? v : null;
  } catch {
    return null;
  }
}

/**
 * Values of two expressions of exact inputs at one point: 'equal', 'different' or 'unknown' (off the
 * reals, overflow, or not computable). Exact where mathjs can keep fractions, else 64 digits.
 */
function compareAt(a: string, b: string, scope: Record<string, Rational> = {}): 'equal' | 'different' | 'unknown' {
  // Doubles first, as a gate: exact arithmetic on 9^9^9^9 would run for minutes. Both off the reals
  // or overflowing says nothing; only one of them says they differ.
  const doubles = Object.fromEntries(Object.entries(scope).map(([k, r]) => [k, toNumber(r)]));
  const da = realValue(a, doubles);
  const db = realValue(b, doubles);
  const oka = da !== null && Math.abs(da) < MAX_EXACT_MAGNITUDE;
  const okb = db !== null && Math.abs(db) < MAX_EXACT_MAGNITUDE;
  if (oka !== okb) return 'different';
  if (!oka) return 'unknown';
  const fa = fractionValue(a, scope);
  const fb = fractionValue(b, scope);
  if (fa && fb) return fa.num * fb.den === fb.num * fa.den ? 'equal' : 'different';
  const pa = preciseValue(a, scope);
  const pb = preciseValue(b, scope);
  if (!pa || !pb) return pa === pb ? 'unknown' : 'different';
  const diff = pa.minus(pb).abs();
  const scale = pa.abs().greaterThan(pb.abs()) ? pa.abs() : pb.abs();
  return diff.lessThanOrEqualTo(scale.greaterThan(1) ? scale.times(PRECISE_TOL) : PRECISE_TOL) ? 'equal' : 'different';
}

/** Evaluate to a real number; null for anything else (units, matrices, complex, errors). */
function realValue(expr: string, scope: Record<string, number> = {}): number | null {
  try {
    const c = compile(expr, 'number');
    if (!c) return null;
    const v: unknown = c.evaluate({ ...scope });
    if (typeof v === 'number') return Number.isNaN(v) ? null : v;
    if (v && typeof v === 'object' && 're' in v && 'im' in v) {
      const c = v as { re: number; im: number };
      return Math.abs(c.im) <= REL_TOL * Math.max(1, Math.abs(c.re)) ? c.re : null;
    }
    return null;
  } catch {
    return null;
  }
}

function close(a: number, b: number): boolean {
  // 9^9^9^9 and 9^9^9^8 both overflow to Infinity; that is no evidence they are equal.
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= REL_TOL * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Whether an expression holds a decimal literal: then it is a rounded value and tolerance applies. */
const hasDecimal = (expr: string): boolean => /\d\.\d/.test(expr);

/**
 * Symbolic identity: both sides compared at POINTS rational points drawn from an rng seeded by the
 * pair. Exactly (fractions) for rational functions, to 64 digits for roots and functions; with
 * REL_TOL in doubles only when a side holds a decimal literal. Points off the reals or where
 * either side is undefined say nothing; at least one must be defined on both sides, else mathjs
 * `simplify(a - b)` is consulted, and only on short input (its cost grows steeply).
 */
function symbolicEqual(a: ParsedExpr, b: ParsedExpr, tol: Tolerance): boolean {
  const vars = [...new Set([...a.vars, ...b.vars])].sort();
  const [x, y] = [a.expr, b.expr].sort();
  const rng = createRng(`math-points:${x}\u0000${y}`);
  const decimal = rounded(tol, hasDecimal(a.expr), hasDecimal(b.expr));
  let agreed = 0;
  for (let k = 0; k < POINTS; k++) {
    const point: Record<string, Rational> = {};
    for (const v of vars) {
      const num = BigInt(1 + rng.int(60)) * (rng.chance(0.5) ? -1n : 1n);
      point[v] = { num, den: BigInt(1 + rng.int(12)), decimal: false };
    }
    let verdict: 'equal' | 'different' | 'unknown';
    if (decimal) {
      const scope = Object.fromEntries(Object.entries(point).map(([k2, r]) => [k2, toNumber(r)]));
      const va = realValue(a.expr, scope);
      const vb = realValue(b.expr, scope);
      const fa = va !== null && Number.isFinite(va);
      const fb = vb !== null && Number.isFinite(vb);
      verdict = fa !== fb ? 'different' : !fa ? 'unknown' : close(va!, vb!) ? 'equal' : 'different';
    } else {
      verdict = compareAt(a.expr, b.expr, point);
    }
    if (verdict === 'different') return false;
    if (verdict === 'equal') agreed++;
  }
  if (agreed > 0) return true;
  if (a.expr.length + b.expr.length > MAX_SIMPLIFY) return false;
  try {
    return math().simplify(`(${a.expr}) - (${b.expr})`).toString() === '0';
  } catch {
    return false;
  }
}

/** Split `(a, b)` / `[a, b]` at top-level commas; null when it is not a tuple/interval. */
function tupleParts(s: string): { open: string; close: string; parts: string[] } | null {
  if (!/^[([].*[)\]]$/.test(s)) return null;
  const parts: string[] = [];
  let depth = 0;
  let start = 1;
  for (let i = 1; i < s.length - 1; i++) {
    const ch = s[i]!;
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) { if (--depth < 0) return null; }
    else if (ch === ',' && depth === 0) { parts.push(s.slice(start, i)); start = i + 1; }
  }
  if (depth !== 0 || parts.length === 0) return null;
  parts.push(s.slice(start, s.length - 1));
  return { open: s[0]!, close: s[s.length - 1]!, parts };
}

function normalizedEqual(na: string, nb: string, tol: Tolerance): boolean {
  if (na === '' || nb === '') return false;
  if (na === nb) return true;
  const ta = tupleParts(na);
  const tb = tupleParts(nb);
  if (ta && tb) {
    return ta.open === tb.open && ta.close === tb.close && ta.parts.length === tb.parts.length &&
      ta.parts.every((p, k) => normalizedEqual(p, tb.parts[k]!, tol));
  }
  const ra = exactRational(na);
  const rb = exactRational(nb);
  if (ra && rb) return rationalEqual(ra, rb, tol);
  const pa = toMathjs(na);
  const pb = toMathjs(nb);
  if (!pa || !pb) return false;
  if (pa.vars.size === 0 && pb.vars.size === 0) {
    // A rounded value on either side (`0.866…` for √3/2) is compared with tolerance; exact
    // inputs (`2^10`, `\\sqrt{12}`, `2\\sqrt{3}`) exactly or to 64 digits.
    if (rounded(tol, hasDecimal(pa.expr), hasDecimal(pb.expr))) {
      const va = realValue(pa.expr);
      const vb = realValue(pb.expr);
      return va !== null && vb !== null && close(va, vb);
    }
    return compareAt(pa.expr, pb.expr) === 'equal';
  }
  return symbolicEqual(pa, pb, tol);
}

/**
 * Math answer equivalence between two answers (symmetric; votes use it): normalized string match;
 * else exact rationals (integers and fractions exactly, within REL_TOL when a side is a decimal);
 * else numeric, exactly or to 64 digits unless a side is a decimal; else symbolic at seeded
 * rational points.
 */
export function mathEquivalent(a: string, b: string): boolean {
  try {
    return normalizedEqual(normalizeMathAnswer(a), normalizeMathAnswer(b), 'either');
  } catch {
    return false;
  }
}

/** A percent sign (`25%`, `25\%`): the value may be read as 25 or as 0.25. */
const PERCENT = /%/;

/**
 * An answer against its gold: as mathEquivalent, but rounding is allowed only where the gold is a
 * decimal. The percent rule: a side written with `%` matches the other as its number or as its
 * hundredth (`25%` is gold 25 and gold 0.25; `25` without the sign is not 0.25).
 */
export function mathMatchesGold(answer: string, gold: string): boolean {
  try {
    const na = normalizeMathAnswer(answer);
    const ng = normalizeMathAnswer(gold);
    if (normalizedEqual(na, ng, 'gold')) return true;
    if (PERCENT.test(answer) && exactRational(na)) return normalizedEqual(`(${na})/(100)`, ng, 'gold');
    if (PERCENT.test(gold) && exactRational(ng)) return normalizedEqual(na, `(${ng})/(100)`, 'gold');
    return false;
  } catch {
    return false;
  }
}

const short = (s: string): string => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

const ANSWER_LINE = /^[ \t]*####|(?:final\s+answer|answer)[ \t*]*(?::|is\b)/im;

/** A cut-off reply holds an answer when the extraction finds one and it was stated in a closed box or on an answer line that ended. */
export function mathHoldsAnswerWhenCut(completion: string): boolean {
  if (extractMathAnswer(completion) === null) return false;
  const text = stripThinking(completion);
  return lastBoxedAt(text) !== null || ANSWER_LINE.test(finishedLines(text));
}

/** Grader for math niches: reward 1 iff the extracted final answer is equivalent to the gold. */
export function createMathGrader(): Grader {
  return {
    extract: (completion) => {
      try {
        return extractMathAnswer(completion);
      } catch {
        return null;
      }
    },
    equivalent: mathEquivalent,
    holdsAnswerWhenCut: (completion) => {
      try {
        return mathHoldsAnswerWhenCut(completion);
      } catch {
        return false;
      }
    },
    grade: async (completion: string, task: Task): Promise<Grade> => {
      let extracted: string | null = null;
      try {
        extracted = extractMathAnswer(completion);
        if (extracted === null) return { reward: 0, correct: false, extracted, detail: 'no answer found' };
        const gold = goldAnswer(task.hidden.answer);
        const ok = mathMatchesGold(extracted, gold);
        const detail = ok ? `correct: ${short(gold)}` : `expected ${short(gold)} got ${short(extracted)}`;
        return { reward: ok ? 1 : 0, correct: ok, extracted, detail };
      } catch (err) {
        return { reward: 0, correct: false, extracted, detail: `grader error: ${String(err)}` };
      }
    },
  };
}

/** The `math` domain's grader. */
export const mathGrader: GraderDescriptor = { domain: 'math', create: () => createMathGrader() };
