import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md is the map a new maintainer reads first: every folder and file it names
 * must be on disk, and every folder on disk must be on it (STYLE.md, "Folders that match the map").
 */
const ROOT = path.resolve(__dirname, '../..');
const page = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
const SRC = path.join(ROOT, 'src');

/** Whether `name` (a file, a folder ending in `/`, or a `*` pattern) exists in `dir`. */
function existsIn(dir: string, name: string): boolean {
  const clean = name.replace(/\/$/, '');
  if (!clean.includes('*')) return existsSync(path.join(dir, clean)) && (!name.endsWith('/') || statSync(path.join(dir, clean)).isDirectory());
  const parent = path.join(dir, path.dirname(clean));
  const re = new RegExp(`^${path.basename(clean).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  return existsSync(parent) && readdirSync(parent).some((f) => re.test(f));
}

/** A backticked token that reads as a path below src/ (`engine/run/run-scenario.ts`, `team/structures/`, `src/llm/`). */
function srcPaths(text: string): string[] {
  const tops = readdirSync(SRC).filter((f) => statSync(path.join(SRC, f)).isDirectory());
  return [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!.replace(/^src\//, '').replace(/\/<name>\.ts$|\/<[a-z]+>\.ts$/, '/'))
    .filter((p) => p.includes('/') && tops.includes(p.split('/')[0]!) && /^[\w./*-]+$/.test(p));
}

describe('docs/architecture.md against the disk', () => {
  it('names only files and folders under src/ that exist', () => {
    const named = srcPaths(page);
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((p) => !existsIn(SRC, p))).toEqual([]);
  });

  it("names in the engine map only files of the folder its row is under", () => {
    const map = page.slice(page.indexOf('## A map of `engine/`'), page.indexOf('## Layers'));
    let folder = '';
    const missing: string[] = [];
    for (const line of map.split('\n').filter((l) => l.startsWith('| '))) {
      const first = line.split('|')[1]!;
      const head = /^\s*\*\*`([a-z-]+)\/`\*\*/.exec(first);
      if (head) { folder = head[1]!; continue; }
      if (!folder) continue;
      for (const [, name] of first.matchAll(/`([^`]+)`/g)) if (!existsIn(path.join(SRC, 'engine', folder), name!)) missing.push(`engine/${folder}/${name}`);
    }
    expect(folder, 'the map has folder rows').not.toBe('');
    expect(missing).toEqual([]);
  });

  it('lays out every top-level folder of src/ (and engine/) and nothing that is not there', () => {
    const layout = /## Layout of the repository\n\n```\n([\s\S]*?)```/.exec(page)![1]!;
    const listed = [...layout.matchAll(/^src\/([a-z-]+)\//gm)].map((m) => m[1]!);
    const onDisk = readdirSync(SRC).filter((f) => statSync(path.join(SRC, f)).isDirectory());
    expect([...listed].sort()).toEqual([...onDisk].sort());
    const engineDirs = readdirSync(path.join(SRC, 'engine')).filter((f) => statSync(path.join(SRC, 'engine', f)).isDirectory());
    const engineLine = layout.slice(layout.indexOf('src/engine/'), layout.indexOf('src/cli/'));
    for (const d of engineDirs) expect(engineLine, `src/engine/${d}/ in the layout`).toContain(`${d}/`);
  });

  it('places each folder it describes as holding a part where that part is', () => {
    // The claims "the simulated model and serve-sim are in src/X/" and the like, read from the page's prose.
    const claims: Array<[RegExp, string]> = [[/simulated model/, 'sim/sim-plugin.ts'], [/serve-sim/, 'sim/server']];
    // A paragraph (or a line of the layout block) gives a part to the last `src/X/` named before it.
    // Tables say what a part uses, not where it lives: prose and the layout block only.
    const paragraphs = page.split(/\n\s*\n/).filter((p) => !p.startsWith('|'))
      .flatMap((p) => (p.startsWith('```') ? p.split('\n') : [p.replace(/\n/g, ' ')]));
    let checked = 0;
    for (const [what, where] of claims) {
      for (const para of paragraphs) {
        for (const at of [...para.matchAll(new RegExp(what.source, 'g'))].map((m) => m.index)) {
          const folders = [...para.slice(0, at).matchAll(/`?src\/([a-z]+)\/`?/g)].map((m) => m[1]!);
          if (folders.length === 0) continue;
          checked++;
          expect(`${folders.at(-1)}/`, `"…${para.slice(Math.max(0, at - 80), at + 20)}…" places ${what.source}`).toBe(`${where.split('/')[0]}/`);
        }
      }
      expect(existsSync(path.join(SRC, where)), where).toBe(true);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
