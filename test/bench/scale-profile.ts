// Where the CPU of a long run goes, early against late: scale-child's setup (quickstart niches, N
// agents, lifecycle on) with a CPU profile (node:inspector) of each window of tasks asked for.
// `node --import tsx test/bench/scale-profile.ts AGENTS TASKS OUT_PREFIX FROM:TO [FROM:TO ...]`
// writes OUT_PREFIX-FROM-TO.cpuprofile and prints CPU per task every 500 tasks (the profiler adds
// its own); PROF_INTERVAL sets the sampling interval in µs (default 1000).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';

const [agents, tasks] = process.argv.slice(2, 4).map(Number) as [number, number];
const prefix = process.argv[4]!;
const windows = process.argv.slice(5).map((w) => w.split(':').map(Number) as [number, number]);
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const session = new Session();
session.connect();
const post = (m: string, p?: object) => new Promise<{ profile?: object }>((res, rej) => session.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r as { profile?: object }))));
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: Number(process.env.PROF_INTERVAL ?? 1000) });
const base = loadScenario(path.resolve('scenarios/quickstart.json'));
const scenario = withOverrides(base, { agents: { count: agents }, population: { lifecycle: { maxAgents: agents } } });
const dir = mkdtempSync(path.join(tmpdir(), 'evo-prof-'));
let cpu0 = 0;
const start = cpuMs();
let last = start;
await runScenario(scenario, {
  patch: { 'stream.tasks': tasks }, report: false, outDir: dir,
  onProgress: (p) => {
    if (p.done % 500 === 0) { const now = cpuMs(); process.stderr.write(`${p.done} ${((now - last) / 500).toFixed(2)} ms/task\n`); last = now; }
    for (const [a, b] of windows) {
      if (p.done === a) { cpu0 = cpuMs(); void post('Profiler.start'); }
      if (p.done === b) {
        const c = cpuMs() - cpu0;
        void post('Profiler.stop').then((r) => { writeFileSync(`${prefix}-${a}-${b}.cpuprofile`, JSON.stringify(r.profile)); process.stderr.write(`profile ${a}-${b}: ${(c / (b - a)).toFixed(2)} ms/task\n`); });
      }
    }
  },
});
rmSync(dir, { recursive: true, force: true });
console.log(`total ${(cpuMs() - start).toFixed(0)} ms`);
