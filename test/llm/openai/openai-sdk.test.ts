// The `openai` package is loaded when an endpoint pool makes its first request (openai-sdk.ts), not
// at every start: a run on the simulated model never compiles its 0.37 MB.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadedOpenAI, loadOpenAI } from '../../../src/llm/openai/openai-sdk';

const SRC = path.resolve('src');

describe('the openai SDK, loaded on demand', () => {
  it('is imported for its values by openai-sdk.ts alone; every other file imports its types only', () => {
    const valueImports: string[] = [];
    for (const rel of readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join(SRC, rel), 'utf8');
      for (const m of text.matchAll(/^\s*(import|export)\b(?!\s+type\b)[^;]*?\bfrom\s*'openai(\/[^']*)?'/gm)) valueImports.push(`${rel}: ${m[0].trim()}`);
      if (/\bimport\s*\(\s*'openai/.test(text)) valueImports.push(`${rel}: import('openai')`);
    }
    expect(valueImports).toEqual([`llm${path.sep}openai${path.sep}openai-sdk.ts: import('openai')`]);
  });

  it('loads once, and every caller gets the same module', async () => {
    const [a, b] = await Promise.all([loadOpenAI(), loadOpenAI()]);
    expect(a).toBe(b);
    expect(loadedOpenAI()).toBe(a);
    expect(typeof a.default).toBe('function');
  });
});
