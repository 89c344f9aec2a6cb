import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRng } from '../../src/core/rng';
import { cosine } from '../../src/core/vector';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { EXACT_SEARCH_LIMIT, VectorIndex } from '../../src/store/vector-index';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
/** Tasks per run of the agent sweep (2,000 by default), and of the long 256-agent run. */
const SWEEP_TASKS = env('EVO_SCALE_TASKS', 2000);
const LONG_TASKS = env('EVO_SCALE_LONG', 20_000);
const AGENTS = (process.env.EVO_SCALE_AGENTS ?? '8,32,64,128,256').split(',').map(Number);
/** Sections to run (comma list of search, sweep, long, startup; default all). */
const PARTS = new Set((process.env.EVO_SCALE_PARTS ?? 'search,sweep,long,startup').split(','));

interface ChildResult {
  agents: number; tasks: number; accuracy: number; agentsEver: number; lineage: Record<string, number>;
  lessons: number; metaInsights: number;
  runCpuMs: number; totalCpuMs: number; maxRssMiB: number;
  samples: { tasks: number; heapMiB: number; externalMiB: number; rssMiB: number; cpuMs: number }[];
}

/** One run in its own process (scale-child.ts): its CPU and peak RSS are its own. */
function child(agents: number, tasks: number, every: number): ChildResult {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/bench/scale-child.ts', String(agents), String(tasks), String(every)], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20,
  });
  if (r.status !== 0) throw new Error(`scale child ${agents}x${tasks} exited ${r.status ?? r.signal}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

/** CPU seconds (user + system) and peak RSS of a command, children included (/usr/bin/time). */
function timed(args: string[]): { cpuS: number; rssMiB: number } {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', ...args], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.slice(-1000)}`);
  const [u, s, m] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
  return { cpuS: u + s, rssMiB: m / 1024 };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };

/** Least-squares line y = a + b·x (also the speed bench's growth law). */
export function fit(xs: number[], ys: number[]): { a: number; b: number } {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) { sxy += (xs[i]! - mx) * (ys[i]! - my); sxx += (xs[i]! - mx) ** 2; }
  const b = sxx === 0 ? 0 : sxy / sxx;
  return { a: my - b * mx, b };
}

/** Exact scan against hnswlib by bucket size: the measurement behind EXACT_SEARCH_LIMIT. */
function benchSearch(): void {
  const embedder = createHashEmbedder();
  const words = 'isolate the variable carry each digit sort list reverse string person born year event count sum product check units'.split(' ');
  const rng = createRng(21);
  const text = () => `${Array.from({ length: 12 }, () => words[rng.int(words.length)]).join(' ')} ${rng.int(1e6)}`;
  console.log(`search (dim ${embedder.dim}, top 4 of 30 queries): exact scan vs hnswlib (M 16, efConstruction 200, ef 200); EXACT_SEARCH_LIMIT = ${EXACT_SEARCH_LIMIT}`);
  console.log('  items   build hnsw   hnsw ms/query   exact ms/query   same top-4');
  for (const n of [256, 1024, 2048, 4096, 8192]) {
    const items = Array.from({ length: n }, (_, i) => ({ i, key: embedder.embedSync(text()) }));
    const exact = new VectorIndex<{ i: number; key: Float32Array }>(embedder.dim, { exactLimit: Infinity });
    const hnsw = new VectorIndex<{ i: number; key: Float32Array }>(embedder.dim, { exactLimit: 0 });
    for (const x of items) { exact.add(x); hnsw.add(x); }
    const queries = Array.from({ length: 30 }, () => embedder.embedSync(text()));
    let t = performance.now();
    hnsw.search(queries[0]!, 4); // builds the index
    const build = performance.now() - t;
    t = performance.now();
    const h = queries.map((q) => hnsw.search(q, 4).map((r) => r.item.i));
    const hMs = (performance.now() - t) / queries.length;
    t = performance.now();
    const e = queries.map((q) => exact.search(q, 4).map((r) => r.item.i));
    const eMs = (performance.now() - t) / queries.length;
    const truth = queries.map((q) => items.map((x) => ({ i: x.i, s: cosine(q, x.key) })).sort((a, b) => b.s - a.s || a.i - b.i).slice(0, 4).map((x) => x.i));
    const same = h.filter((x, j) => JSON.stringify(x) === JSON.stringify(truth[j])).length;
    const exactOk = e.every((x, j) => JSON.stringify(x) === JSON.stringify(truth[j]));
    console.log(`  ${String(n).padStart(5)}   ${build.toFixed(0).padStart(7)} ms   ${hMs.toFixed(3).padStart(13)}   ${eMs.toFixed(3).padStart(14)}   hnsw ${same}/30, exact ${exactOk ? '30/30' : 'WRONG'}`);
  }
}

/**
 * `npm run bench -- scale`: populations at scale (issue 21).
 * - search: exact scan vs hnswlib by bucket size (why buckets below EXACT_SEARCH_LIMIT hold no index);
 * - the agent sweep: quickstart's niches with N agents (agents.count = lifecycle.maxAgents = N,
 *   lifecycle on) × EVO_SCALE_TASKS tasks (default 2,000), each run in its own process: CPU ms per
 *   task (the run's, start-up apart) and peak RSS;
 * - the long run: 256 agents × EVO_SCALE_LONG tasks (default 20,000; the goal is 100,000), with the
 *   heap after a full collection at ten checkpoints: the growth law (linear fit) and its
 *   extrapolation to 100,000 tasks; the retained heap per 1,000 tasks is the leak check;
 * - throughput on quickstart (tasks per CPU-second) and a 1-task run's CPU against `node -e 0`.
 * Figures are printed, never asserted. EVO_SCALE_AGENTS (comma list) narrows the sweep, and
 * EVO_SCALE_PARTS (search, sweep, long, startup) picks sections.
 */
export async function benchScale(): Promise<void> {
  if (PARTS.has('search')) benchSearch();
  if (PARTS.has('sweep')) benchSweep();
  if (PARTS.has('long')) benchLong();
  if (PARTS.has('startup')) benchStartup();
}

function benchSweep(): void {
  console.log(`\nagent sweep: quickstart niches, lifecycle on, ${SWEEP_TASKS} tasks per run, one process each`);
  console.log('  agents   agents ever   accuracy   CPU ms/task   peak RSS MiB   heap after gc MiB');
  for (const n of AGENTS) {
    const r = child(n, SWEEP_TASKS, SWEEP_TASKS);
    const heap = r.samples.at(-1)?.heapMiB;
    console.log(`  ${String(n).padStart(6)}   ${String(r.agentsEver).padStart(11)}   ${r.accuracy.toFixed(3).padStart(8)}   ${(r.runCpuMs / r.tasks).toFixed(2).padStart(11)}   ${r.maxRssMiB.toFixed(0).padStart(12)}   ${heap?.toFixed(0).padStart(17) ?? '-'}`);
  }

}

function benchLong(): void {
  const every = Math.max(1, Math.floor(LONG_TASKS / 10));
  console.log(`\nlong run: 256 agents x ${LONG_TASKS} tasks (goal: 100,000 in <= 2 GiB peak RSS and <= 5 ms CPU per task)`);
  const long = child(256, LONG_TASKS, every);
  console.log('  tasks   CPU ms/task (since last)   heap after gc MiB   external MiB   RSS MiB');
  let prev = { tasks: 0, cpuMs: 0 };
  for (const s of long.samples) {
    console.log(`  ${String(s.tasks).padStart(6)}   ${((s.cpuMs - prev.cpuMs) / (s.tasks - prev.tasks)).toFixed(2).padStart(24)}   ${s.heapMiB.toFixed(0).padStart(17)}   ${s.externalMiB.toFixed(0).padStart(12)}   ${s.rssMiB.toFixed(0).padStart(7)}`);
    prev = s;
  }
  // The first window holds start-up (roster, first indexes): the law is fitted on the rest.
  const rest = long.samples.slice(1);
  const heapLaw = fit(rest.map((s) => s.tasks), rest.map((s) => s.heapMiB));
  const rssLaw = fit(rest.map((s) => s.tasks), rest.map((s) => s.rssMiB));
  const cpuLaw = fit(rest.map((s) => s.tasks), rest.map((s) => s.cpuMs));
  const extLaw = fit(rest.map((s) => s.tasks), rest.map((s) => s.externalMiB));
  console.log(`  archive memberships held (every agent ever): ${long.lessons} lessons, ${long.metaInsights} meta-insights`);
  console.log(`  agents ever ${long.agentsEver}, accuracy ${long.accuracy.toFixed(3)}, peak RSS ${long.maxRssMiB.toFixed(0)} MiB, run CPU ${(long.runCpuMs / 1000).toFixed(1)} s (${(long.runCpuMs / long.tasks).toFixed(2)} ms/task)`);
  console.log(`  growth law: heap after gc = ${heapLaw.a.toFixed(0)} MiB + ${(heapLaw.b * 1000).toFixed(2)} MiB per 1,000 tasks; external (keys) = ${extLaw.a.toFixed(0)} MiB + ${(extLaw.b * 1000).toFixed(2)} MiB per 1,000 tasks; RSS = ${rssLaw.a.toFixed(0)} MiB + ${(rssLaw.b * 1000).toFixed(2)} MiB per 1,000 tasks; CPU ${cpuLaw.b.toFixed(2)} ms per task`);
  console.log(`  extrapolated to 100,000 tasks: heap ${(heapLaw.a + heapLaw.b * 1e5).toFixed(0)} MiB, RSS ${(rssLaw.a + rssLaw.b * 1e5).toFixed(0)} MiB (goal <= 2048), CPU ${cpuLaw.b.toFixed(2)} ms/task (goal <= 5)`);
  console.log(`  leak check: what a full collection leaves grows ${(heapLaw.b * 1000).toFixed(2)} MiB per 1,000 tasks (the run's own state: archives, agent histories, the leadership bank; a finished task's outcome is collectable, test/engine/retention.test.ts)`);
}

function benchStartup(): void {
  console.log('\nthroughput and start-up');
  const quick = child(0, 240, 0);
  console.log(`  quickstart as shipped (240 tasks): ${(quick.tasks / (quick.runCpuMs / 1000)).toFixed(0)} tasks per CPU-second of the run, ${(quick.tasks / (quick.totalCpuMs / 1000)).toFixed(0)} with start-up (goal >= 300)`);
  spawnSync(process.execPath, ['test/tools/build-dist.mjs', '--if-stale'], { cwd: ROOT, stdio: 'ignore' });
  const bare: number[] = [];
  const one: number[] = [];
  for (let i = 0; i < 5; i++) {
    bare.push(timed([process.execPath, '-e', '0']).cpuS);
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-scale-one-'));
    one.push(timed([process.execPath, 'bin/evochamber.js', 'run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--quiet', '--force', '--out', dir]).cpuS);
    rmSync(dir, { recursive: true, force: true });
  }
  const b = median(bare);
  const o = median(one);
  console.log(`  node -e 0: ${(b * 1000).toFixed(0)} ms CPU; evochamber run quickstart --tasks 1: ${(o * 1000).toFixed(0)} ms CPU (medians of 5): ${(o / b).toFixed(1)}x (goal <= 5x)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchScale();
