/**
 * Math grader: final-answer extraction from raw completions, then exact / numeric / symbolic
 * equivalence against the hidden gold answer. Reward is 1 or 0.
 */
import { createRequire } from 'node:module';
import type { Grade, Grader, Task } from '../task';
import { stripThinking } from '../../core/text';
import { lastBoxed } from './answer-text';
import { normalizeMathAnswer } from './math-normalize';
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
const REL_TOL = 1e-9;
/** simplify() only runs when both sides together are this short (see symbolicEqual). */
const MAX_SIMPLIFY = 40;
/** Longer letter runs are words, not products of variables; more variables is not an answer. */
const MAX_NAME = 4;
const MAX_VARS = 6;
/** Names mathjs may see as functions/constants; every other identifier is split into variables. */
const KNOWN_NAMES = new Set(['sqrt', 'nthRoot', 'pi', 'e', 'i', 'Infinity', 'log', 'exp', 'sin', 'cos', 'tan', 'abs']);
const FUNCTIONS = new Set(['sqrt', 'nthRoot', 'log', 'exp', 'sin', 'cos', 'tan', 'abs']);
/** Fixed, sign-mixed sample points for the numeric identity check (no randomness: determinism). */
const SAMPLES = [0.5377, -1.8339, 2.2588, -0.8622, 0.3188, 1.3077, -0.4336, 3.5784];

// Single character classes between the parts keep these linear on adversarial whitespace runs.
const ANSWER_PHRASE = /(?:final\s+answer|answer)[ \t*]*(?::|is\b)[\s*]*([^\n]+)/gi;
const HASH_LINE = /^[ \t]*####[ \t]*([^\n]+)/gm;
/**
 * A minus after a word or `)` is subtraction or a range ("2-5"), not a sign. A sign may stand
 * before a currency symbol (`-$10`, `−$10`, `-\$10`): it still belongs to the number.
 */
const NUMBER = /(?:(?<![\w)])[-\u2212])?(?:\\?\$[ \t]?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+(?:\.\d+)?)?/g;

/** The final answer in a raw completion: last `\boxed{}`, else an answer line, else the last number. */
export function extractMathAnswer(completion: string): string | null {
  const text = tail(stripThinking(completion), MAX_ANSWER_TEXT);
  if (text === '') return null;
  const boxed = lastBoxed(text);
  if (boxed !== null && boxed !== '') return boxed;
  const hash = [...text.matchAll(HASH_LINE)].pop()?.[1];
  if (hash !== undefined && cleanLine(hash) !== '') return cleanLine(hash);
  for (const m of [...text.matchAll(ANSWER_PHRASE)].reverse()) {
    const line = cleanLine(m[1] ?? '');
    if (/\d|\\/.test(line) || (line.length > 0 && line.length <= 12 && !/\s/.test(line))) return line;
  }
  const numbers = [...text.matchAll(NUMBER)];
  const last = numbers.pop()?.[0];
  return last === undefined ? null : last.replace(/\s+/g, '').replace(/\\?\$/, '').replace('\u2212', '-');
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

const PLAIN_DECIMAL = /^-?\d{1,15}(\.\d{1,15})?$/;

/** Evaluate to a real number; null for anything else (units, matrices, complex, errors). */
function realValue(expr: string, scope: Record<string, number> = {}): number | null {
  // A plain decimal is the same double to mathjs and to Number, and most answers are one: no need
  // to load mathjs (a second of start-up) to read them.
  if (PLAIN_DECIMAL.test(expr)) return Number(expr);
  try {
    const v: unknown = math().evaluate(expr, { ...scope });
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

/**
 * Symbolic identity. Both sides are evaluated at fixed sample points first: cheap, and decisive
 * whenever a point is real. Only when no point is (e.g. `sqrt(-x)`) is mathjs `simplify(a - b)`
 * consulted, and only on short input: its cost grows steeply (a 21-character quotient chain takes
 * ~300 ms), and equivalence runs O(n²) times per vote.
 */
function symbolicEqual(a: ParsedExpr, b: ParsedExpr): boolean {
  const vars = [...new Set([...a.vars, ...b.vars])].sort();
  let agreed = 0;
  for (let k = 0; k < 3; k++) {
    const scope: Record<string, number> = {};
    vars.forEach((v, j) => { scope[v] = SAMPLES[(j * 3 + k) % SAMPLES.length]!; });
    const va = realValue(a.expr, scope);
    const vb = realValue(b.expr, scope);
    const fa = va !== null && Number.isFinite(va);
    const fb = vb !== null && Number.isFinite(vb);
    if (fa !== fb) return false;
    if (!fa || !fb) continue; // overflow or off the reals at this point: says nothing
    if (!close(va!, vb!)) return false;
    agreed++;
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

function normalizedEqual(na: string, nb: string): boolean {
  if (na === '' || nb === '') return false;
  if (na === nb) return true;
  const ta = tupleParts(na);
  const tb = tupleParts(nb);
  if (ta && tb) {
    return ta.open === tb.open && ta.close === tb.close && ta.parts.length === tb.parts.length &&
      ta.parts.every((p, k) => normalizedEqual(p, tb.parts[k]!));
  }
  const pa = toMathjs(na);
  const pb = toMathjs(nb);
  if (!pa || !pb) return false;
  if (pa.vars.size === 0 && pb.vars.size === 0) {
    const va = realValue(pa.expr);
    const vb = realValue(pb.expr);
    return va !== null && vb !== null && close(va, vb);
  }
  return symbolicEqual(pa, pb);
}

/** Math answer equivalence: normalized string match, else numeric (rel. 1e-9), else symbolic. */
export function mathEquivalent(a: string, b: string): boolean {
  try {
    return normalizedEqual(normalizeMathAnswer(a), normalizeMathAnswer(b));
  } catch {
    return false;
  }
}

const short = (s: string): string => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

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
    grade: async (completion: string, task: Task): Promise<Grade> => {
      let extracted: string | null = null;
      try {
        extracted = extractMathAnswer(completion);
        if (extracted === null) return { reward: 0, correct: false, extracted, detail: 'no answer found' };
        const gold = goldAnswer(task.hidden.answer);
        const ok = mathEquivalent(extracted, gold);
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
