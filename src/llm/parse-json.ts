/**
 * Tolerant JSON extraction from LLM replies. Models wrap JSON in reasoning, fences and prose, and
 * write near-JSON (trailing commas, single or smart quotes, comments, bare keys); this module finds
 * the intended value and repairs those faults. Contract: never throws; `undefined` means nothing
 * usable; time linear in the reply (one bracket-matching pass, a capped re-reading budget), and
 * only the last `MAX_JSON_INPUT` characters are searched.
 */

import { stripThinking } from '../core/text';

/** Only the last 256 KiB of a reply (think blocks removed) are searched for JSON. */
export const MAX_JSON_INPUT = 256 * 1024;

/** Parse the JSON value an LLM reply most likely intends; `undefined` when none is usable. Never throws. */
export function parseJsonLoose(text: string): unknown | undefined {
  if (typeof text !== 'string') return undefined;
  return parseStripped(stripThinking(text));
}

/** parseJsonLoose of a reply whose think blocks are already removed. Never throws. */
function parseStripped(stripped: string): unknown | undefined {
  try {
    // The answer comes last in a reply; beyond this, a reply is a runaway generation.
    const body = stripped.length > MAX_JSON_INPUT ? stripped.slice(-MAX_JSON_INPUT) : stripped;
    for (const block of jsonFences(body).slice(0, MAX_FENCES)) {
      const value = parseFirstValue(block);
      if (value !== undefined) return value;
    }
    const lead = body.search(/\S/);
    // A reply that is nothing but JSON may be an array; prose is only searched for objects.
    const candidates = new Candidates(body);
    if (lead >= 0 && (body[lead] === '[' || body[lead] === '{')) {
      const value = candidates.parseAt(lead);
      if (value !== undefined) return value;
    }
    return candidates.firstObject();
  } catch {
    return undefined;
  }
}

/**
 * Bodies of ```json fences (closed ones only), found with indexOf so a run of backticks stays
 * linear: each step moves past the block it looked at.
 */
function jsonFences(text: string): string[] {
  const blocks: string[] = [];
  let at = text.indexOf('```');
  while (at >= 0) {
    const lineEnd = text.indexOf('\n', at + 3);
    if (lineEnd < 0) break;
    const close = text.indexOf('```', lineEnd + 1);
    if (close < 0) break;
    const info = text.slice(at + 3, lineEnd).trimStart();
    if (/^json/i.test(info)) blocks.push(text.slice(lineEnd + 1, close));
    at = text.indexOf('```', close + 3);
  }
  return blocks;
}

function parseFirstValue(text: string): unknown | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const c = new Candidates(text);
  return c.parseAt(start) ?? c.firstObject();
}

/** At most this many ```json fences are tried (a reply has one or two; more is a runaway). */
const MAX_FENCES = 64;
// Bounds the work on brace-heavy replies (code, LaTeX) where most `{` open no JSON.
const MAX_CANDIDATES = 200;
/** Characters re-read while trying candidates, as a multiple of the text length (plus a floor). */
const WORK_FACTOR = 8;
const WORK_FLOOR = 1 << 16;

/**
 * Where every bracket of a text closes, found in ONE pass (string- and comment-aware inside
 * values, as `scanValue` reads them), so trying many `{` openings never re-scans the text: only
 * openings that close are tried, and the re-reading they cost is capped by a work budget.
 */
class Candidates {
  private closes: Int32Array | null = null;
  private budget: number;

  constructor(private readonly text: string) {
    this.budget = WORK_FACTOR * text.length + WORK_FLOOR;
  }

  /** The value opened at `start` (`{` or `[`), strict JSON first, then repaired. */
  parseAt(start: number): unknown | undefined {
    const end = this.closeOf(start);
    if (end === undefined) return undefined;
    const len = end - start + 1;
    if (this.budget < 3 * len) return undefined;
    this.budget -= 3 * len;
    return parseSpan(this.text, start, end);
  }

  /** The first `{…}` (outer before nested, left to right) that parses. */
  firstObject(): unknown | undefined {
    const closes = this.table();
    let tried = 0;
    for (let start = 0; start < closes.length && tried < MAX_CANDIDATES; start++) {
      if (closes[start] === 0 || this.text.charCodeAt(start) !== OPEN_BRACE) continue;
      tried++;
      const value = this.parseAt(start);
      if (value !== undefined) return value;
      if (this.budget <= 0) break;
    }
    return undefined;
  }

  private closeOf(start: number): number | undefined {
    const close = this.table()[start] ?? 0;
    return close === 0 ? undefined : close - 1;
  }

  private table(): Int32Array {
    this.closes ??= matchBrackets(this.text);
    return this.closes;
  }
}

/** Strict parse of text[start..end], else of scanValue's repaired copy. */
function parseSpan(text: string, start: number, end: number): unknown | undefined {
  try {
    return JSON.parse(text.slice(start, end + 1)) as unknown;
  } catch {
    // fall through to the repaired form
  }
  const scanned = scanValue(text, start);
  if (!scanned || scanned.end !== end) return undefined;
  try {
    return JSON.parse(scanned.repaired) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * For each index of an open bracket that closes, its close index + 1 (0 elsewhere). Outside values
 * only brackets count; inside, strings and comments are skipped exactly as scanValue skips them.
 */
function matchBrackets(text: string): Int32Array {
  // Typed arrays, not a Map and a growing array: a `[` flood pushes every character.
  const closes = new Int32Array(text.length);
  const stack = new Int32Array(text.length);
  let top = 0;
  // Next `{` and `[` at or after i, each searched again only once passed: linear overall.
  let brace = -2;
  let bracket = -2;
  let i = 0;
  while (i < text.length) {
    if (top === 0) {
      if (brace !== -1 && brace < i) brace = text.indexOf('{', i);
      if (bracket !== -1 && bracket < i) bracket = text.indexOf('[', i);
      const next = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
      if (next < 0) break;
      stack[top++] = next;
      i = next + 1;
      continue;
    }
    // Char codes, not one-character strings tested against lists: this loop sees every character.
    const c = text.charCodeAt(i);
    if (c === QUOTE || c === APOSTROPHE || (c >= SMART_FIRST && c <= SMART_LAST)) {
      const ch = text[i] as string;
      const kind = c === QUOTE ? 'double' : SMART_DOUBLE.includes(ch) ? 'smart' : 'single';
      const end = stringEnd(text, i, kind);
      if (end < 0) break; // an unclosed string swallows the rest, as in scanValue
      i = end + 1;
    } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) break;
      i = close + 2;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      stack[top++] = i;
      i++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      closes[stack[--top]!] = i + 1;
      i++;
    } else {
      i++;
    }
  }
  return closes;
}

// Char codes of " ' / * { [ } ]
const QUOTE = 34;
const APOSTROPHE = 39;
const SLASH = 47;
const STAR = 42;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
/** The smart quotes, single (U+2018–U+201B) then double (U+201C–U+201F), are one range. */
const SMART_FIRST = 0x2018;
const SMART_LAST = 0x201f;

/** Index of the quote closing the string opened at `start`, or -1 (readString without building). */
function stringEnd(text: string, start: number, kind: 'double' | 'smart' | 'single'): number {
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\') {
      if (i + 1 >= text.length) return -1;
      const next = text[i + 1] as string;
      const unicode = next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6));
      if (VALID_ESCAPES.includes(next) || unicode || next === "'") i++;
      continue;
    }
    if (isCloser(text, i, kind)) return i;
  }
  return -1;
}

const SMART_DOUBLE = '\u201c\u201d\u201e\u201f';
const SMART_SINGLE = '\u2018\u2019\u201a\u201b';
const VALID_ESCAPES = '"\\/bfnrt';
const PY_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };
// Sticky patterns, matched in place so scanning stays linear in the reply length.
const NUMBER = /-?[0-9][0-9.eE+-]*/y;
const WORD = /[A-Za-z_$][\w$]*/y;
const COLON_AHEAD = /\s*:/y;
const CLOSE_AHEAD = /\s*(?:[,:}\]]|$)/y;

function matchAt(re: RegExp, text: string, at: number): string | undefined {
  re.lastIndex = at;
  return re.exec(text)?.[0];
}

/**
 * Walk one bracketed value from `start` (a `{` or `[`), tracking strings so braces inside them do
 * not count, and build a repaired strict-JSON copy on the way. Returns the index of the matching
 * close bracket, or undefined when the value never closes.
 */
function scanValue(text: string, start: number): { end: number; repaired: string } | undefined {
  const out: string[] = [];
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"' || SMART_DOUBLE.includes(c) || c === "'" || SMART_SINGLE.includes(c)) {
      const kind = c === '"' ? 'double' : SMART_DOUBLE.includes(c) ? 'smart' : 'single';
      const str = readString(text, i, kind);
      if (!str) return undefined;
      out.push(str.json);
      i = str.end + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return undefined;
      i = close + 2;
    } else if (c === '{' || c === '[') {
      depth++;
      out.push(c);
      i++;
    } else if (c === '}' || c === ']') {
      dropTrailingComma(out);
      out.push(c);
      depth--;
      if (depth === 0) return { end: i, repaired: out.join('') };
      i++;
    } else if (/[0-9-]/.test(c)) {
      // Consumed whole so an exponent's `e` is not mistaken for a bare key.
      const num = matchAt(NUMBER, text, i) ?? c;
      out.push(num);
      i += num.length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = matchAt(WORD, text, i) ?? c;
      i += word.length;
      const isKey = matchAt(COLON_AHEAD, text, i) !== undefined;
      out.push(isKey ? JSON.stringify(word) : (PY_LITERALS[word] ?? word));
    } else {
      out.push(c);
      i++;
    }
  }
  return undefined;
}

function dropTrailingComma(out: string[]): void {
  let j = out.length - 1;
  while (j >= 0 && /^\s*$/.test(out[j] as string)) j--;
  if (out[j] === ',') out.splice(j, 1);
}

/**
 * Read a string opened at `start`, returning it as a JSON string literal. A single-quoted string
 * closes only at a quote followed by `, : } ]` or the end, so apostrophes ("don't") stay inside.
 */
function readString(text: string, start: number, kind: 'double' | 'smart' | 'single'): { end: number; json: string } | undefined {
  let json = '"';
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      const unicode = next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6));
      if (VALID_ESCAPES.includes(next) || unicode) {
        json += `\\${next}`;
        i++;
      } else if (next === "'") {
        json += "'"; // JSON has no \' escape
        i++;
      } else {
        json += '\\\\'; // an invalid escape is a literal backslash; the next char is read normally
      }
      continue;
    }
    if (isCloser(text, i, kind)) return { end: i, json: `${json}"` };
    if (ch === '"') json += '\\"';
    else if (ch < ' ') json += ch === '\n' ? '\\n' : ch === '\t' ? '\\t' : ch === '\r' ? '\\r' : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else json += ch;
  }
  return undefined;
}

function isCloser(text: string, i: number, kind: 'double' | 'smart' | 'single'): boolean {
  const ch = text[i] as string;
  if (kind === 'double') return ch === '"';
  if (kind === 'smart') return ch === '"' || SMART_DOUBLE.includes(ch);
  if (ch !== "'" && !SMART_SINGLE.includes(ch)) return false;
  return matchAt(CLOSE_AHEAD, text, i + 1) !== undefined;
}

const isPlainRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Read a model reply that should hold one JSON object: the object itself, or one wrapped one level
 * deep ({"reflection": {…}}), read by `fromRecord`; failing that, the reply's text without think
 * blocks read by `fromText` (labelled lines and the like), up to its first `MAX_JSON_INPUT`
 * characters. Never throws; linear in the reply.
 */
export function parseRecordReply<T>(
  text: string, fromRecord: (r: Record<string, unknown>) => T | undefined, fromText: (t: string) => T | undefined,
): T | undefined {
  if (typeof text !== 'string') return undefined;
  const stripped = stripThinking(text); // once: both readers see the reply without think blocks
  const value = parseStripped(stripped);
  if (isPlainRecord(value)) {
    const direct = fromRecord(value);
    if (direct) return direct;
    for (const inner of Object.values(value)) {
      const nested = isPlainRecord(inner) ? fromRecord(inner) : undefined;
      if (nested) return nested;
    }
  }
  // Text readers take the FIRST label they find, so they read the head of the reply; like the JSON
  // reader's tail, the cut only ever meets a runaway generation (a reflection or verdict is a few
  // hundred words), and it keeps a loop of a million `Lesson:` lines from costing a regex each.
  return fromText(stripped.length > MAX_JSON_INPUT ? stripped.slice(0, MAX_JSON_INPUT) : stripped);
}

/** A field name as models vary it: case, spaces, `_` and `-` ignored (`Meta Insight` = `meta_insight`). */
export const canonicalKey = (key: string): string => key.toLowerCase().replace(/[\s_-]/g, '');

/** The first of `keys` (canonical form) that the record holds as a string, trimmed; undefined when none does. */
export function stringField(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const entries = Object.entries(record).map(([k, v]) => [canonicalKey(k), v] as const);
  for (const key of keys) {
    const hit = entries.find(([k]) => k === key);
    if (hit && typeof hit[1] === 'string') return hit[1].trim();
  }
  return undefined;
}
