import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PARAMS } from '../../src/sim/sim-params';

// The README is the front door: short, linking every other page; the pages hold the reference.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pages = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

/**
 * The sections of a markdown page a reference may name, lower-cased and without backticks: its
 * headings (outside code blocks), and the bold run-in heads that open a paragraph or a list item
 * ("**Budgets.** The scenario's …", "- **Discovery**: …").
 */
function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const head = /^#{1,6}\s+(.+)$/.exec(line)?.[1] ?? /^(?:- )?\*\*([^*]+?)[.:]?\*\*/.exec(line)?.[1];
    if (head) out.add(head.replaceAll('`', '').trim().toLowerCase());
  }
  return out;
}

/** Every place under src/ whose comments cite a document, with what it cites: `file` and, when quoted, `section`. */
function citations(): Array<{ at: string; file: string; section: string | null }> {
  const out: Array<{ at: string; file: string; section: string | null }> = [];
  const src = path.join(ROOT, 'src');
  for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.ts')).sort()) {
    // Comments wrap: join continuation lines so a quoted section split over two lines reads whole.
    const text = readFileSync(path.join(src, f), 'utf8').replace(/\n\s*(?:\*(?!\/)|\/\/)\s?/g, ' ');
    for (const m of text.matchAll(/\b(README|DESIGN|docs\/[\w.-]+\.md)\b(?:\.md)?([,:]?\s*\(?\s*"([^"]+)"|\s*§\s*[\w.]+)?/g)) {
      const file = m[1] === 'README' ? 'README.md' : m[1] === 'DESIGN' ? 'DESIGN.md' : m[1]!;
      out.push({ at: `src/${f}`, file, section: m[2]?.includes('§') ? m[2].trim() : (m[3]?.replace(/\s+/g, ' ') ?? null) });
    }
  }
  return out;
}

describe('the documentation', () => {
  it('has a README of at most 250 lines that links every page in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((p) => !readme.includes(`](docs/${p}`))).toEqual([]);
  });

  it('explains every parameter of the simulated model in docs/simulated-model.md, and keeps the list out of the README', () => {
    const page = readFileSync(path.join(ROOT, 'docs/simulated-model.md'), 'utf8');
    const keys = Object.keys(DEFAULT_SIM_PARAMS);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter((k) => !page.includes(`\`${k}\``))).toEqual([]);
    // The README is the front door: it links the page rather than naming the parameters.
    expect(keys.filter((k) => readme.includes(`\`${k}\``)).length).toBeLessThan(3);
  });

  it('tells how to run one test file', () => {
    expect(readme).toMatch(/npx vitest run test\/\S+\.test\.ts/);
    const named = /npx vitest run (test\/\S+\.test\.ts)/.exec(readme)![1]!;
    expect(() => readFileSync(path.join(ROOT, named))).not.toThrow();
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

  it('every README, DESIGN or docs/ reference in src/ names a page and a section that exist', () => {
    const cited = citations();
    expect(cited.length).toBeGreaterThan(20);
    const dangling: string[] = [];
    for (const c of cited) {
      let page: string;
      try {
        page = readFileSync(path.join(ROOT, c.file), 'utf8');
      } catch {
        dangling.push(`${c.at}: ${c.file} does not exist`);
        continue;
      }
      if (c.section === null) continue;
      if (c.section.startsWith('§')) dangling.push(`${c.at}: ${c.file} ${c.section} (no page here has numbered sections: cite a heading in quotes)`);
      else if (!sectionsOf(page).has(c.section.replaceAll('`', '').toLowerCase())) dangling.push(`${c.at}: ${c.file}, "${c.section}" is no heading there`);
    }
    expect(dangling).toEqual([]);
  });
});
