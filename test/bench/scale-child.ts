// One measured run for `npm run bench -- scale`, in its own process so that its peak RSS and CPU
// are its own: quickstart's niches with N agents (agents.count = lifecycle.maxAgents = N, lifecycle
// on; N = 0: quickstart as shipped), T tasks, [BOUNDS as JSON]. Prints one JSON line. Run with `node --expose-gc --import tsx`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';

const [agents, tasks, every] = process.argv.slice(2, 5).map(Number) as [number, number, number];
/** Optional fifth argument: the scenario's `bounds` as JSON (the state bounds a growth run measures). */
const bounds = process.argv[5] ? JSON.parse(process.argv[5]) as Record<string, number> : undefined;
const gc = (globalThis as { gc?: () => void }).gc;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const base = loadScenario(path.resolve('scenarios/quickstart.json'));
// 0 agents: quickstart as shipped (4 agents, lifecycle up to 8).
const sized = agents === 0 ? base : withOverrides(base, { agents: { count: agents }, population: { lifecycle: { maxAgents: agents } } });
const scenario = bounds ? withOverrides(sized, { bounds }) : sized;
const dir = mkdtempSync(path.join(tmpdir(), 'evo-scale-'));
// Heap after a full collection at checkpoints: what the run keeps, without the garbage not yet collected.
const samples: { tasks: number; heapMiB: number; heapTotalMiB: number; externalMiB: number; rssMiB: number; cpuMs: number }[] = [];
const start = cpuMs();
const { summary } = await runScenario(scenario, {
  patch: { 'stream.tasks': tasks }, report: false, outDir: dir,
  onProgress: (p) => {
    if (every > 0 && p.done % every === 0 && gc) {
      gc();
      const m = process.memoryUsage();
      // external: off-heap memory V8 knows of (the keys' Float32Array buffers); hnswlib's is in RSS only.
      samples.push({ tasks: p.done, heapMiB: m.heapUsed / 2 ** 20, heapTotalMiB: m.heapTotal / 2 ** 20, externalMiB: m.external / 2 ** 20, rssMiB: m.rss / 2 ** 20, cpuMs: cpuMs() - start });
      // As it goes, for a run that may be cut short.
      process.stderr.write(`${JSON.stringify(samples.at(-1))}\n`);
    }
  },
});
const runCpuMs = cpuMs() - start;
rmSync(dir, { recursive: true, force: true });
const s = summary as unknown as { agents: { count: number; active: number; lessons: number; metaInsights: number }; lineage: Record<string, number> };
console.log(JSON.stringify({
  agents, tasks: summary.tasks, accuracy: summary.accuracy, agentsEver: s.agents.count, lineage: s.lineage,
  // Archive memberships over every agent ever spawned: what the run's archives hold.
  lessons: s.agents.lessons, metaInsights: s.agents.metaInsights,
  runCpuMs, totalCpuMs: cpuMs(), maxRssMiB: process.resourceUsage().maxRSS / 1024, samples,
}));
