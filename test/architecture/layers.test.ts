import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The import rule of docs/architecture.md, checked by reading the imports of every file under src/.
// Layers, lowest first; a file imports only from its own folder or from layers strictly below it:
//   core < llm, tasks, store < sim < individual < team < population < engine < cli
// llm, tasks and store are one level: none of them imports another. sim (the simulated model and
// serve-sim) is a backend like any other: it reads core, llm, tasks and store, and only cli plugs it
// in (the engine never names it). report reads only store and core, and only cli imports report.
// src/index.ts, the package entry, is outside the layers.

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

const LEVEL: Readonly<Record<string, number>> = {
  core: 0, llm: 1, tasks: 1, store: 1, sim: 2, individual: 3, team: 4, population: 5, engine: 6, cli: 7,
};
/** Folders read only by the ones named: plug-ins the composition (cli, the package entry) wires in. */
const READ_ONLY_BY: Readonly<Record<string, ReadonlySet<string>>> = {
  sim: new Set(['cli']),
};
const REPORT_READS: ReadonlySet<string> = new Set(['store', 'core']);
const REPORT_READERS: ReadonlySet<string> = new Set(['cli']);
const ENTRY = 'index';
const FOLDERS: ReadonlySet<string> = new Set([...Object.keys(LEVEL), 'report']);

/** Whether a file in folder `from` may import one in folder `to` (both top-level folders of src/). */
function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  if (from === 'report') return REPORT_READS.has(to);
  if (to === 'report') return REPORT_READERS.has(from);
  if (READ_ONLY_BY[to] && !READ_ONLY_BY[to]!.has(from)) return false;
  const a = LEVEL[from];
  const b = LEVEL[to];
  return a !== undefined && b !== undefined && b < a;
}

// `import … from '…'`, `export … from '…'` (over several lines), `import '…'`, and `import('…')`.
const SPECIFIERS = [
  /(?:^|[\s;}])(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g,
  /(?:^|[\s;])import\s*(['"])([^'"]+)\1/g,
  /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
];

/** True when offset `at` of `source` lies on a comment line (`//`, or a `/* … *\/` block's lines). */
function inCommentLine(source: string, at: number): boolean {
  const line = source.slice(source.lastIndexOf('\n', at - 1) + 1, at).trimStart();
  return line.startsWith('//') || line.startsWith('*') || line.startsWith('/*');
}

/** The relative specifiers a source file imports (static, re-export, side-effect and dynamic). */
function relativeImports(source: string): string[] {
  const out = new Set<string>();
  for (const re of SPECIFIERS) {
    for (const m of source.matchAll(re)) {
      const spec = m[2]!;
      if (spec.startsWith('.') && !inCommentLine(source, m.index + m[0].indexOf(spec))) out.add(spec);
    }
  }
  return [...out];
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Top-level folder of a path under src/, with or without `.ts` ('index' for the entry, '' outside src/). */
function folderOf(file: string): string {
  const rel = path.relative(SRC, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return '';
  return rel.split(path.sep)[0]!.replace(/\.ts$/, '');
}

describe('import rule (docs/architecture.md)', () => {
  it('knows every top-level folder under src/, and src/ holds no file but the entry', () => {
    const unknown = readdirSync(SRC).filter((name) => {
      const isDir = statSync(path.join(SRC, name)).isDirectory();
      return isDir ? !FOLDERS.has(name) : name !== `${ENTRY}.ts`;
    });
    // A new folder needs a place in the layers (here and in docs/architecture.md) before it holds code.
    expect(unknown, `unknown under src/: ${unknown.join(', ')}`).toEqual([]);
  });

  it('has no import that breaks the layer rule', () => {
    const violations: string[] = [];
    let scanned = 0;
    for (const file of tsFiles(SRC)) {
      const from = folderOf(file);
      if (from === ENTRY) continue;
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        scanned += 1;
        const target = path.resolve(path.dirname(file), spec);
        const to = folderOf(target);
        if (to === '') continue;
        if (to === ENTRY || !mayImport(from, to)) {
          violations.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    // The scan must have seen the codebase's imports, or an empty result proves nothing.
    expect(scanned).toBeGreaterThan(300);
    expect(violations, `layer violations (from -> to):\n${violations.join('\n')}`).toEqual([]);
  });

  it('states the rule: below only, siblings apart, report read by cli alone', () => {
    expect(mayImport('llm', 'core')).toBe(true);
    expect(mayImport('team', 'individual')).toBe(true);
    expect(mayImport('cli', 'report')).toBe(true);
    expect(mayImport('report', 'store')).toBe(true);
    expect(mayImport('engine', 'engine')).toBe(true);
    expect(mayImport('core', 'llm')).toBe(false);
    expect(mayImport('llm', 'tasks')).toBe(false);
    expect(mayImport('team', 'population')).toBe(false);
    expect(mayImport('engine', 'report')).toBe(false);
    expect(mayImport('report', 'engine')).toBe(false);
    expect(mayImport('engine', 'cli')).toBe(false);
    expect(mayImport('plugins', 'core')).toBe(false);
    expect(mayImport('sim', 'llm')).toBe(true);
    expect(mayImport('sim', 'tasks')).toBe(true);
    expect(mayImport('cli', 'sim')).toBe(true);
    expect(mayImport('engine', 'sim')).toBe(false);
    expect(mayImport('population', 'sim')).toBe(false);
    expect(mayImport('llm', 'sim')).toBe(false);
    expect(mayImport('sim', 'individual')).toBe(false);
  });

  it('finds static, re-exported, side-effect and dynamic imports, and skips comments', () => {
    const src = [
      "import { a } from './a';",
      "import type {\n  B,\n  C,\n} from '../b/c';",
      "export { d } from './d';",
      "export * from '../e';",
      "import './side-effect';",
      "const m = await import('../../f/g');",
      "import { z } from 'zod';",
      "// import { h } from '../h';",
      " * `import('../report/x')` in a doc comment",
      "const s = Array.from(list);",
    ].join('\n');
    expect(relativeImports(src).sort()).toEqual(['../../f/g', '../b/c', '../e', './a', './d', './side-effect']);
  });
});

// Inside engine/, the folders of docs/architecture.md ("The engine's folders") form layers too, lowest
// first: scenario (the schema, presets, model plug-in kinds) < meta (segments, the editor) < loop (one
// run's solve–evolve loop) < run (a run made, started, resumed) < sweep (many runs: ablate, local and
// queued sweeps, plan). A file imports only from its own folder or from one below it.
const ENGINE = path.join(SRC, 'engine');
const ENGINE_LEVEL: Readonly<Record<string, number>> = { scenario: 0, meta: 1, loop: 2, run: 3, sweep: 4 };

/** The engine sub-folder of a path under src/engine/ ('' outside it). */
function engineFolderOf(file: string): string {
  const rel = path.relative(ENGINE, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return '';
  return rel.split(path.sep)[0]!;
}

describe("engine's folders (docs/architecture.md)", () => {
  it('holds every engine file in a known folder', () => {
    const loose = tsFiles(ENGINE).map((f) => path.relative(ENGINE, f)).filter((rel) => ENGINE_LEVEL[rel.split(path.sep)[0]!] === undefined);
    expect(loose, `engine files outside scenario/ meta/ loop/ run/ sweep/: ${loose.join(', ')}`).toEqual([]);
  });

  it('has no import from a lower engine folder to a higher one', () => {
    const violations: string[] = [];
    let scanned = 0;
    for (const file of tsFiles(ENGINE)) {
      const from = engineFolderOf(file);
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const to = engineFolderOf(path.resolve(path.dirname(file), spec));
        if (to === '') continue;
        scanned += 1;
        if (ENGINE_LEVEL[to]! > ENGINE_LEVEL[from]!) violations.push(`${path.relative(SRC, file)} -> ${spec}`);
      }
    }
    expect(scanned).toBeGreaterThan(100);
    expect(violations, `engine folder violations (from -> to):\n${violations.join('\n')}`).toEqual([]);
  });
});

describe('import cycles', () => {
  it('has none under src/, type-only imports included', () => {
    const files = tsFiles(SRC);
    const resolve = (from: string, spec: string): string | undefined => {
      const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
      return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => files.includes(f));
    };
    const graph = new Map(files.map((f) => [f, relativeImports(readFileSync(f, 'utf8')).map((s) => resolve(f, s)).filter((t): t is string => t !== undefined)]));
    // Tarjan's strongly connected components: any with more than one file is a cycle.
    let index = 0;
    const stack: string[] = [];
    const on = new Set<string>();
    const ix = new Map<string, number>();
    const low = new Map<string, number>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      ix.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!ix.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, ix.get(w)!));
      }
      if (low.get(v) !== ix.get(v)) return;
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); scc.push(path.relative(SRC, w)); } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    };
    for (const f of files) if (!ix.has(f)) visit(f);
    expect(graph.size).toBeGreaterThan(200);
    expect(cycles).toEqual([]);
  });
});
