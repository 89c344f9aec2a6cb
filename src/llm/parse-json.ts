/**
 * Tolerant JSON extraction from LLM replies. Models wrap JSON in reasoning, fences and prose, and
 * write near-JSON (trailing commas, single or smart quotes, comments, bare keys); this module finds
 * the intended value and repairs those faults. Contract: never throws; `undefined` means nothing usable.
 */

import { stripThinking } from './think-blocks';

/** Parse the JSON value an LLM reply most likely intends; `undefined` when none is usable. Never throws. */
export function parseJsonLoose(text: string): unknown | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const body = stripThinking(text);
    for (const block of jsonFences(body)) {
      const value = parseFirstValue(block);
      if (value !== undefined) return value;
    }
    const trimmed = body.trim();
    // A reply that is nothing but JSON may be an array; prose is only searched for objects.
    if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
      const value = parseAt(trimmed, 0);
      if (value !== undefined) return value;
    }
    return firstObject(body);
  } catch {
    return undefined;
  }
}

function jsonFences(text: string): string[] {
  const blocks: string[] = [];
  for (const m of text.matchAll(/```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g)) {
    if (/^json/i.test(m[1] ?? '')) blocks.push(m[2] ?? '');
  }
  return blocks;
}

function parseFirstValue(text: string): unknown | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  return parseAt(text, start) ?? firstObject(text);
}

// Bounds the work on brace-heavy replies (code, LaTeX) where most `{` open no JSON.
const MAX_CANDIDATES = 200;

function firstObject(text: string): unknown | undefined {
  let start = text.indexOf('{');
  for (let tries = 0; start >= 0 && tries < MAX_CANDIDATES; tries++) {
    const value = parseAt(text, start);
    if (value !== undefined) return value;
    // Try nested openings too: a broken wrapper can still hold a well-formed inner object.
    start = text.indexOf('{', start + 1);
  }
  return undefined;
}

function parseAt(text: string, start: number): unknown | undefined {
  const scanned = scanValue(text, start);
  if (!scanned) return undefined;
  // Strict first, so valid JSON is never altered by a repair heuristic.
  for (const candidate of [text.slice(start, scanned.end + 1), scanned.repaired]) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // fall through to the repaired form
    }
  }
  return undefined;
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
