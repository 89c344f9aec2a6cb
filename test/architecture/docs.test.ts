import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PARAMS } from '../../src/index';

// The README is the front door: short, linking every other page; the pages hold the reference.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pages = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

describe('the documentation', () => {
  it('has a README of at most 250 lines that links every page in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((p) => !readme.includes(`](docs/${p}`))).toEqual([]);
  });

  it('names every parameter of the simulated model in the README and explains it in docs/simulated-model.md', () => {
    const page = readFileSync(path.join(ROOT, 'docs/simulated-model.md'), 'utf8');
    const keys = Object.keys(DEFAULT_SIM_PARAMS);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter((k) => !readme.includes(`\`${k}\``))).toEqual([]);
    expect(keys.filter((k) => !page.includes(`\`${k}\``))).toEqual([]);
  });

  it('has no relative link that points nowhere', () => {
    const broken: string[] = [];
    for (const [file, text] of [['README.md', readme] as const, ...pages.map((p) => [`docs/${p}`, readFileSync(path.join(ROOT, 'docs', p), 'utf8')] as const)]) {
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        try {
          readFileSync(path.resolve(ROOT, path.dirname(file), target));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EISDIR') continue;
          broken.push(`${file} -> ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
