// The package as a user gets it: `npm pack` of the built dist/, unpacked into a project outside
// the repo, imported by plain Node (no tsx, no loader) and type-checked as a NodeNext consumer would.
//
// Installing the tarball's dependencies from the registry would take minutes (hnswlib-node compiles),
// so the consumer's node_modules gets symlinks to the repo's installed copies of the *production*
// dependencies only, as package-lock.json records them (entries not marked dev). The package itself
// is real files unpacked from the tarball, so its imports resolve through the consumer's
// node_modules: a dev-only package (tsx, vitest) or a file missing from "files" fails here.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const consumer = mkdtempSync(path.join(tmpdir(), 'evo-consumer-'));
const installed = path.join(consumer, 'node_modules', 'evochamber');
const TASKS = 12;
const SEED = 3;

/** Fields that may differ between two runs of the same scenario and seed (paths and wall time). */
const UNSTABLE = new Set(['runDir', 'timing', 'reportPath']);
function stable(summary: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(summary).filter(([k]) => !UNSTABLE.has(k)));
}

/** `node <args>` in the consumer project; stdout, or the failure with stderr. */
function nodeIn(args: string[]): string {
  const r = spawnSync(process.execPath, args, { cwd: consumer, encoding: 'utf8', timeout: 90_000 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  // dist/ as of the sources now: a no-op after `npm ci` (prepare built it), a rebuild after an edit.
  execFileSync(process.execPath, ['test/tools/build-dist.mjs', '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', consumer], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { filename: string }[];
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(consumer, packed[0]!.filename), '-C', installed, '--strip-components=1']);

  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) || entry.dev || entry.devOptional) continue;
    const from = path.join(ROOT, key);
    if (!existsSync(from)) continue; // an optional dependency for another platform
    mkdirSync(path.dirname(path.join(consumer, key)), { recursive: true });
    symlinkSync(from, path.join(consumer, key), 'dir');
  }
  writeFileSync(path.join(consumer, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
}, 120_000);

afterAll(() => rmSync(consumer, { recursive: true, force: true }));

describe('the packed evochamber package, installed outside the repo', () => {
  it('holds dist/ with every runtime asset and leaves tsx and the sources out', () => {
    expect(existsSync(path.join(consumer, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(path.join(installed, 'src'))).toBe(false);
    const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.tsx).toBeUndefined();
    const srcDir = path.join(ROOT, 'src');
    const assets = readdirSync(srcDir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && !d.name.endsWith('.ts'))
      .map((d) => path.relative(srcDir, path.join(d.parentPath, d.name)));
    expect(assets.some((a) => a.endsWith('.txt'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.py'))).toBe(true);
    for (const a of assets) expect(readFileSync(path.join(installed, 'dist', a), 'utf8'), a).toBe(readFileSync(path.join(srcDir, a), 'utf8'));
    for (const dir of ['niches', 'agents', 'scenarios']) expect(readdirSync(path.join(installed, dir)).length, dir).toBeGreaterThan(0);
  });

  it('runs a scenario from a plain .mjs, with the same summary as the sources give', async () => {
    writeFileSync(path.join(consumer, 'main.mjs'), `
import { fileURLToPath } from 'node:url';
import { loadScenario, runScenario } from 'evochamber';
const file = fileURLToPath(new URL('./node_modules/evochamber/scenarios/quickstart.json', import.meta.url));
const { summary } = await runScenario(loadScenario(file), { patch: { seed: ${SEED}, 'stream.tasks': ${TASKS} }, outDir: 'run', report: { outDir: 'report' } });
console.log(JSON.stringify(summary));
`);
    const summary = JSON.parse(nodeIn(['main.mjs']).trim().split('\n').pop()!) as Record<string, unknown> & { tasks: number; reportPath?: string; perNiche: Record<string, number> };
    expect(summary.tasks).toBe(TASKS);
    // The report renders Vega-Lite charts: vega loads under plain Node (it did not through tsx).
    expect(summary.reportPath).toBe(path.join(consumer, 'report', 'index.html'));
    expect(readFileSync(summary.reportPath!, 'utf8')).toContain('<svg');

    const fromSource = loadScenario(path.join(ROOT, 'scenarios/quickstart.json'));
    const { summary: expected } = await runScenario(fromSource, { patch: { seed: SEED, 'stream.tasks': TASKS }, outDir: path.join(consumer, 'run-src'), report: false });
    expect(stable(summary)).toEqual(stable(expected as unknown as Record<string, unknown>));
  });

  it('runs the README\'s library example as written, from a fresh directory', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes("from 'evochamber'"));
    expect(example, 'a ```js block importing evochamber in README.md').toBeDefined();
    const dir = mkdtempSync(path.join(consumer, 'fresh-'));
    writeFileSync(path.join(dir, 'example.mjs'), example!);
    const r = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 90_000, env: { ...process.env, NODE_PATH: '' } });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status).toBe(0);
    // console.log prints `variant accuracy { …perNiche… }`, the object over several lines.
    const lines = r.stdout.split('\n').filter((l) => /^[a-z-]+ [0-9.]+ \{/.test(l));
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['single-agent', 'individual']);
    for (const l of lines) expect(Number(l.split(' ')[1])).toBeGreaterThanOrEqual(0);
  });

  it('runs the evochamber command from the package, each command loaded when it runs', () => {
    const bin = path.join(installed, 'bin', 'evochamber.js');
    expect(nodeIn([bin, '--help'])).toContain('Usage: evochamber <command>');
    expect(nodeIn([bin, '--version'])).toMatch(new RegExp(`^evochamber ${(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version.replace(/\./g, '\\.')} \\(node `));
    // The run directory the .mjs above wrote; `inspect` is imported from dist/cli/commands/ on demand.
    expect(nodeIn([bin, 'inspect', 'run'])).toMatch(/finished/);
  });

  it('type-checks a NodeNext consumer against the shipped .d.ts', () => {
    // A Node library's consumer has Node's types; they are a dev dependency here, so link them in.
    const nodeTypes = path.join(consumer, 'node_modules', '@types', 'node');
    if (!existsSync(nodeTypes)) {
      mkdirSync(path.dirname(nodeTypes), { recursive: true });
      symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), nodeTypes, 'dir');
    }
    writeFileSync(path.join(consumer, 'typed.mts'), `
import { runScenario, loadScenario, type RunResult } from 'evochamber';
const result: RunResult = await runScenario(loadScenario('s.json'), { patch: { seed: 1 } });
const accuracy: number = result.summary.accuracy;
// @ts-expect-error accuracy is a number: this line fails only if the types resolved
const wrong: string = result.summary.accuracy;
export { accuracy, wrong };
`);
    writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'], skipLibCheck: true },
      files: ['typed.mts'],
    }));
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, encoding: 'utf8', timeout: 90_000 });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
