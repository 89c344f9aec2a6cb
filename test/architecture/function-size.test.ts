import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The run's hub stays a reading of named pieces (STYLE.md, "A loop that reads like its diagram"):
 * no function in src/engine/run/ is over 80 lines, nor the engine loop's `runLoop`. A new
 * feature that grows one gives its part a name instead.
 */
const ROOT = path.resolve(__dirname, '../..');
const LIMIT = 80;

/** The offset of the `}` closing the `{` at `open`, skipping strings, template literals and comments. */
function closing(text: string, open: number): number {
  let depth = 0;
  // The depths at which a template literal's `${` opened: its `}` goes back into the template.
  const templates: number[] = [];
  /** Scan a template literal from `j` to its end (returns the closing backtick) or to a `${` (returns its `{`). */
  const template = (j: number): number => {
    for (; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '`') return j;
      else if (text[j] === '$' && text[j + 1] === '{') { depth++; templates.push(depth); return j + 1; }
    }
    return text.length;
  };
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '/' && text[i + 1] === '/') { i = text.indexOf('\n', i); if (i < 0) return text.length; continue; }
    if (ch === '/' && text[i + 1] === '*') { i = text.indexOf('*/', i) + 1; continue; }
    if (ch === "'" || ch === '"') { for (i++; i < text.length && text[i] !== ch; i++) if (text[i] === '\\') i++; continue; }
    if (ch === '`') { i = template(i + 1); continue; }
    if (ch === '}' && templates.at(-1) === depth) { templates.pop(); depth--; i = template(i + 1); continue; }
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return text.length;
}

/** A line that opens a function body: a declaration, a method, or an arrow with a block body. */
const OPENS = /(\bfunction\b[^{]*|=>\s*|^\s*(?:(?:async|private|public|protected|static|override|get|set)\s+)*[\w$]+\s*(?:<[^>]*>)?\([^;]*\)\s*(?::[^{;=]*)?)\{\s*$/;

/** Every function body of a file that opens at a line's end, with its length in lines. */
function functionsOf(file: string): Array<{ name: string; lines: number }> {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const out: Array<{ name: string; lines: number }> = [];
  let offset = 0;
  lines.forEach((line, i) => {
    if (OPENS.test(line) && !/^\s*(if|for|while|switch|catch|else|try|do)\b/.test(line)) {
      const end = closing(text, offset + line.lastIndexOf('{'));
      const span = text.slice(offset, end).split('\n').length;
      out.push({ name: `${path.relative(ROOT, file)}:${i + 1} ${line.trim().slice(0, 60)}`, lines: span });
    }
    offset += line.length + 1;
  });
  return out;
}

describe('function size', () => {
  it(`keeps every function of src/engine/run/ and the engine loop under ${LIMIT} lines`, () => {
    const dir = path.join(ROOT, 'src/engine/run');
    const files = [...readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f)), path.join(ROOT, 'src/engine/loop/engine.ts')];
    const fns = files.flatMap(functionsOf);
    expect(fns.length).toBeGreaterThan(20);
    expect(fns.filter((f) => f.lines > LIMIT).map((f) => `${f.name} (${f.lines} lines)`)).toEqual([]);
  });
});
