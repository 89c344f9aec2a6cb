import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PRESETS } from '../../src/engine/scenario/presets';
import { fit } from './scale.bench';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
/** Tasks per measured run of the preset table (default 600). */
const TASKS = env('EVO_SPEED_TASKS', 600);
/** Tasks of the 256-agent growth run (default 20,000; the goal's size). */
const GROWTH_TASKS = env('EVO_SPEED_GROWTH', 20_000);
/** The growth run's scenario `bounds`, as JSON (default: the scenario's), e.g. caps that bind early. */
const GROWTH_BOUNDS = process.env.EVO_SPEED_BOUNDS;
/** Sections to run (comma list of presets, parts, growth, startup; default all). */
const PARTS = new Set((process.env.EVO_SPEED_PARTS ?? 'presets,parts,growth,startup').split(','));
/** The baseline presets calibration runs, and the full system; shared-memory only where it exists. */
const VARIANTS = ['single-agent', 'per-agent-memory', 'shared-memory', 'self-consistency', 'evochamber'].filter((v) => Object.hasOwn(PRESETS, v));

interface Run { tasks: number; accuracy: number; cpuMs: number; childrenCpuMs: number; wallMs: number; fromUs: number; toUs: number; verdictHits: number; verdictMisses: number; heapBeforeMiB: number; heapAfterMiB: number }
interface Child {
  scenario: string; variant: string; loadCpuMs: number; maxRssMiB: number; runs: Run[];
  /** The whole child process tree, by /usr/bin/time: CPU seconds (user + system, children included) and the largest process's peak RSS. */
  tree: { cpuMs: number; maxRssMiB: number };
}

/** One speed-child.ts process under /usr/bin/time (optionally under --cpu-prof into `profDir`). */
function child(scenario: string, variant: string, tasks: number, repeats: number, profDir?: string): Child {
  const args = ['--expose-gc', ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), '--import', 'tsx', 'test/bench/speed-child.ts', scenario, variant, String(tasks), String(repeats)];
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`speed child ${scenario} ${variant} exited ${r.status ?? r.signal}: ${r.stderr.slice(-2000)}`);
  const [u, s, kib] = r.stderr.trim().split('\n').reverse().find((l) => l.startsWith('TIME '))!.split(' ').slice(1).map(Number) as [number, number, number];
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Omit<Child, 'tree'>;
  return { ...out, tree: { cpuMs: (u + s) * 1000, maxRssMiB: kib / 1024 } };
}

/** CPU seconds (user + system, children included) of a command, by /usr/bin/time. */
function cpuOf(args: string[]): number {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...args], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.slice(-1000)}`);
  const [u, s] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number) as [number, number];
  return u + s;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Tasks per CPU-second of a run: the whole tree's (node and its reaped children), and node's own. */
const treeRate = (r: Run) => r.tasks / ((r.cpuMs + r.childrenCpuMs) / 1000);
const nodeRate = (r: Run) => r.tasks / (r.cpuMs / 1000);
/** The heap's growth over a run, after full collections before and after: MiB per 1,000 tasks. */
const heapSlope = (r: Run) => (r.heapAfterMiB - r.heapBeforeMiB) / r.tasks * 1000;

/**
 * Tasks per CPU-second of each preset on quickstart and hard: a cold run, then the same run again
 * in the same process (warm). Every row says what the user pays (the process tree: node plus the
 * sandbox's workers, candidates, checkers and bubblewrap it reaped) next to node's own.
 */
function benchPresets(): void {
  console.log(`tasks per CPU-second, ${TASKS} tasks a run; tree = node + every child process it reaped (sandbox workers, candidates, checkers, bubblewrap); load average ${load()}`);
  console.log('  scenario     variant             accuracy   tree cold  tree warm   node cold  node warm   ms/task tree (cold, warm)   children cold   peak RSS MiB (node, tree)   heap MiB/1k warm   verdicts reused (warm)   whole process (time)');
  for (const scenario of ['quickstart', 'hard']) {
    for (const variant of VARIANTS) {
      const c = child(scenario, variant, TASKS, 2);
      const [cold, warm] = c.runs as [Run, Run];
      const msTask = (r: Run) => ((r.cpuMs + r.childrenCpuMs) / r.tasks).toFixed(2);
      const f = (x: number) => x.toFixed(0).padStart(9);
      console.log(`  ${scenario.padEnd(11)}  ${variant.padEnd(18)}  ${cold.accuracy.toFixed(3).padStart(8)}   ${f(treeRate(cold))}  ${f(treeRate(warm))}   ${f(nodeRate(cold))}  ${f(nodeRate(warm))}   ${`${msTask(cold)}, ${msTask(warm)}`.padStart(25)}   ${(cold.childrenCpuMs / 1000).toFixed(2).padStart(11)} s   ${`${c.maxRssMiB.toFixed(0)}, ${c.tree.maxRssMiB.toFixed(0)}`.padStart(25)}   ${heapSlope(warm).toFixed(2).padStart(16)}   ${`${warm.verdictHits}/${warm.verdictHits + warm.verdictMisses}`.padStart(22)}   ${(c.tree.cpuMs / 1000).toFixed(2).padStart(8)} s`);
    }
  }
  console.log('  cold: the first run in a fresh process (lazy modules, JIT warm-up, sandbox start); warm: the same run again in that process (what repeated evaluations see).');
  console.log('  whole process: /usr/bin/time of the child process (both runs, module loading, children): a check on the per-run sums; peak RSS tree: the largest process of the tree.');
}

/** Which part of the code a profile frame belongs to. */
function partOf(url: string, fn: string): string | null {
  if (fn === '(idle)' || fn === '(program)' || fn === '(root)') return null;
  if (fn === '(garbage collector)') return 'garbage collection';
  if (url.includes('node_modules/xstate')) return 'xstate (actors)';
  if (url.includes('node_modules/zod')) return 'zod (validation)';
  if (url.includes('/src/llm/hash-embedder')) return 'hashed embedder';
  if (url.includes('/src/sim/')) return 'simulated model (world, responders)';
  if (url.includes('/src/store/vector-index') || url.includes('/src/individual/archive') || url.includes('/src/team/leadlearn/bank-window')) return 'vector search (archives, bank)';
  if (url.includes('/src/store/')) return 'event log and run store';
  if (url.includes('/src/tasks/graders/code') || url.includes('/src/tasks/graders/test-plan') || url.includes('child_process') || url.includes('stream_base') || url.includes('node:net') || fn === 'writeUtf8String' || fn === 'writeBuffer') return 'code grading (sandbox pipes)';
  if (url.includes('/src/tasks/')) return 'tasks, stream, math and QA graders';
  if (url.includes('/src/llm/')) return 'model stack (journal, accounting, parsing)';
  if (url.includes('/src/engine/')) return 'engine (loop, stages, commit, summary)';
  if (url.includes('/src/individual/') || url.includes('/src/team/') || url.includes('/src/population/')) return 'levels (agents, teams, population)';
  if (url.includes('/src/core/')) return 'core (rng, clock, hashing, text)';
  if (url.includes('modules') || url.includes('tsx') || url.includes('lexer') || fn.startsWith('compile')) return 'module loading';
  return 'other (node, native)';
}

/** CPU ms by part over the samples between fromUs and toUs of every profile in `dir`. */
function partsOf(dir: string, fromUs: number, toUs: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of readdirSync(dir)) {
    const p = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { nodes: { id: number; callFrame: { url: string; functionName: string } }[]; samples: number[]; timeDeltas: number[]; startTime: number };
    const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
    let t = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      t += p.timeDeltas[i]!;
      const next = p.timeDeltas[i + 1] ?? 0;
      if (t < fromUs || t > toUs) continue;
      const frame = byId.get(p.samples[i]!)!;
      const part = partOf(frame.url, frame.functionName);
      if (part) out.set(part, (out.get(part) ?? 0) + next / 1000);
    }
  }
  return out;
}

/** CPU per task by part, from a --cpu-prof profile of the warm run (the second in its process). */
function benchParts(): void {
  console.log(`\nCPU per task by part (warm run of ${TASKS} tasks on quickstart; --cpu-prof samples, idle excluded)`);
  for (const variant of ['single-agent', 'evochamber']) {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-speed-prof-'));
    try {
      const c = child('quickstart', variant, TASKS, 2, dir);
      const warm = c.runs[1]!;
      const parts = [...partsOf(dir, warm.fromUs, warm.toUs)].sort((a, b) => b[1] - a[1]);
      // Samples are taken on a timer, on CPU or preempted alike: their shares split the run's process CPU.
      const total = parts.reduce((s, [, ms]) => s + ms, 0);
      const perTask = warm.cpuMs / warm.tasks;
      console.log(`  ${variant}: ${perTask.toFixed(2)} ms of node's CPU per task, split by the profile's shares (${(warm.childrenCpuMs / warm.tasks).toFixed(2)} ms more in child processes; the cold run's children: ${(c.runs[0]!.childrenCpuMs / c.runs[0]!.tasks).toFixed(2)} ms)`);
      for (const [part, ms] of parts) if (ms / total >= 0.01) console.log(`    ${part.padEnd(44)} ${(perTask * ms / total).toFixed(3).padStart(7)} ms   ${(100 * ms / total).toFixed(1).padStart(5)} %`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** 256 agents × GROWTH_TASKS tasks (scale-child.ts), the heap after a full collection at ten checkpoints: the growth law. */
function benchGrowth(): void {
  const every = Math.max(1, Math.floor(GROWTH_TASKS / 10));
  console.log(`\ngrowth: 256 agents x ${GROWTH_TASKS} tasks (quickstart niches, lifecycle on), heap after a full collection every ${every} tasks${GROWTH_BOUNDS ? `, bounds ${GROWTH_BOUNDS}` : ''}; load average ${load()}`);
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, '--expose-gc', '--import', 'tsx', 'test/bench/scale-child.ts', '256', String(GROWTH_TASKS), String(every), ...(GROWTH_BOUNDS ? [GROWTH_BOUNDS] : [])], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`growth run exited ${r.status ?? r.signal}: ${r.stderr.slice(-2000)}`);
  const [u, sys] = r.stderr.trim().split('\n').reverse().find((l) => l.startsWith('TIME '))!.split(' ').slice(1).map(Number) as [number, number];
  const g = JSON.parse(r.stdout.trim().split('\n').pop()!) as { accuracy: number; agentsEver: number; runCpuMs: number; totalCpuMs: number; tasks: number; maxRssMiB: number; samples: { tasks: number; heapMiB: number; externalMiB: number; rssMiB: number; cpuMs: number }[] };
  console.log('  tasks   CPU ms/task (since last)   heap after gc MiB   external MiB   RSS MiB');
  let prev = { tasks: 0, cpuMs: 0 };
  for (const s of g.samples) {
    console.log(`  ${String(s.tasks).padStart(6)}   ${((s.cpuMs - prev.cpuMs) / (s.tasks - prev.tasks)).toFixed(2).padStart(24)}   ${s.heapMiB.toFixed(0).padStart(17)}   ${s.externalMiB.toFixed(0).padStart(12)}   ${s.rssMiB.toFixed(0).padStart(7)}`);
    prev = s;
  }
  // The first checkpoint is the pool filling up; the law is fitted on the rest.
  const rest = g.samples.slice(1);
  const heap = fit(rest.map((s) => s.tasks), rest.map((s) => s.heapMiB));
  const ext = fit(rest.map((s) => s.tasks), rest.map((s) => s.externalMiB));
  const rss = fit(rest.map((s) => s.tasks), rest.map((s) => s.rssMiB));
  // The tree's CPU less node's own is what its children (the sandbox) took over the whole process.
  const childMs = (u + sys) * 1000 - g.totalCpuMs;
  console.log(`  agents ever ${g.agentsEver}, accuracy ${g.accuracy.toFixed(3)}, ${(g.runCpuMs / g.tasks).toFixed(2)} ms of node's CPU per task, ${((g.runCpuMs + childMs) / g.tasks).toFixed(2)} ms with its children (goal <= 5), peak RSS ${g.maxRssMiB.toFixed(0)} MiB (goal <= 1024)`);
  console.log(`  growth law: heap after gc ${heap.a.toFixed(0)} MiB + ${(heap.b * 1000).toFixed(2)} MiB per 1,000 tasks (goal <= 0.5); external ${(ext.b * 1000).toFixed(2)} MiB per 1,000; RSS ${rss.a.toFixed(0)} MiB + ${(rss.b * 1000).toFixed(2)} MiB per 1,000`);
  console.log(`  extrapolated to 100,000 tasks: heap ${(heap.a + heap.b * 1e5).toFixed(0)} MiB, external ${(ext.a + ext.b * 1e5).toFixed(0)} MiB, RSS ${(rss.a + rss.b * 1e5).toFixed(0)} MiB (goal <= 2048)`);
}

/** A 1-task run's CPU against `node -e 0`, children included (medians of 5), from dist/ and from a bundle when one is built. */
function benchStartup(): void {
  console.log(`\nstart-up: CPU of a 1-task run against node -e 0 (children included, medians of 5; load average ${load()})`);
  spawnSync(process.execPath, ['test/tools/build-dist.mjs', '--if-stale'], { cwd: ROOT, stdio: 'ignore' });
  const bare: number[] = [];
  const one: number[] = [];
  for (let i = 0; i < 5; i++) {
    bare.push(cpuOf([process.execPath, '-e', '0']));
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-speed-one-'));
    one.push(cpuOf([process.execPath, 'bin/evochamber.js', 'run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--quiet', '--force', '--out', dir]));
    rmSync(dir, { recursive: true, force: true });
  }
  const b = median(bare);
  const o = median(one);
  console.log(`  node -e 0: ${(b * 1000).toFixed(0)} ms; evochamber run quickstart --tasks 1: ${(o * 1000).toFixed(0)} ms: ${(o / b).toFixed(1)}x (goal <= 5x)`);
}

/**
 * `npm run bench -- speed` (issue 33): the simulator's speed and the run's memory.
 * - presets: tasks per CPU-second of single-agent, per-agent-memory, shared-memory (when the preset
 *   exists), self-consistency and evochamber on quickstart and hard (EVO_SPEED_TASKS, default 600);
 * - parts: CPU per task by part of the code, from a --cpu-prof profile;
 * - growth: 256 agents × EVO_SPEED_GROWTH tasks (default 20,000) with the heap after a full
 *   collection at ten checkpoints, the growth law and its extrapolation to 100,000 tasks;
 * - startup: a 1-task run's CPU against `node -e 0`.
 * EVO_SPEED_PARTS picks sections. Figures are printed, never asserted.
 */
export async function benchSpeed(): Promise<void> {
  if (PARTS.has('presets')) benchPresets();
  if (PARTS.has('parts')) benchParts();
  if (PARTS.has('startup')) benchStartup();
  if (PARTS.has('growth')) benchGrowth();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchSpeed();
