import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario, type SimParams } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { systemClock } from '../../src/core/clock';
import { scenarioWorld } from '../../src/sim/sim-plugin';
import { worldParams } from '../../src/sim/sim-world-file';
import { aimedEdge, experienceSaturation, readEvents, specialistDynamics, type Saturation } from './signal-analysis';
import { strategyReader } from './signal.bench';

/** A world of the bench: today's, or one with a world-form mechanism turned on (illustrative settings, not fitted). */
interface World {
  /** What `SATURATION_WORLDS` names it by. */
  readonly key: string;
  readonly name: string;
  readonly sim?: Partial<SimParams>;
  readonly capacity?: number;
  /** Run only when `SATURATION_WORLDS` names it. */
  readonly onRequest?: true;
}

const WORLDS: readonly World[] = [
  { key: 'today', name: 'today\'s world' },
  { key: 'rarer', name: 'rarer strategies (24 per niche, strategyRarity 1.2)', sim: { strategiesPerNiche: 24, strategyRarity: 1.2 } },
  { key: 'budget', name: 'context budget 2', sim: { contextBudget: 2 } },
  { key: 'wrong', name: 'wrong lessons 0.3', sim: { wrongLesson: 0.3 } },
  { key: 'forgetting', name: 'forgetting (memory.capacity 4)', capacity: 4 },
  { key: 'families', name: 'problem families (taskFamilies 3)', sim: { taskFamilies: 3 } },
  { key: 'strategies18', name: '18 strategies per niche', sim: { strategiesPerNiche: 18 }, onRequest: true },
  { key: 'families18', name: 'problem families on 18 strategies (taskFamilies 3, strategiesPerNiche 18)', sim: { taskFamilies: 3, strategiesPerNiche: 18 }, onRequest: true },
];
const PRESETS = ['evochamber', 'per-agent-memory', 'shared-memory'];

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : ' n/a');
const quarters = (xs: readonly number[]) => xs.map(f2).join(' → ');

/** What a run says about specialists: stable ones, the niche leader's lead over its runner-up, an aimed persona's edge. */
interface Specialists { stable: number; lead: number; aimedOwn: number; aimedOthers: number }

function print(name: string, acc: readonly number[], ss: readonly Saturation[], perNiche: number, sp: readonly Specialists[]): void {
  const q = (f: (s: Saturation, i: number) => number) => [0, 1, 2, 3].map((i) => mean(ss.map((s) => f(s, i))));
  console.log(`  ${name} (accuracy ${f2(mean(acc))}; stable specialists a run ${f2(mean(sp.map((x) => x.stable)))}; niche leader's lead over the runner-up ${f2(mean(sp.map((x) => x.lead)))}; an aimed agent's own reward on its niche ${f2(mean(sp.map((x) => x.aimedOwn)))} against the others' ${f2(mean(sp.map((x) => x.aimedOthers)))})`);
  console.log(`    niche strategies held per agent and niche, of ${perNiche}, by quarter: ${quarters(q((s, i) => s.held[i]!.mean))}; pairs holding all: ${quarters(q((s, i) => s.held[i]!.full))}`);
  console.log(`    two agents' holdings on a niche, overlap (Jaccard): ${quarters(q((s, i) => s.held[i]!.overlap))}`);
  const t = ss.map((s) => s.tasksToFull);
  console.log(`    niche tasks of the stream before a pair holds all: quartiles ${f2(mean(t.map((x) => x.q1)))}, ${f2(mean(t.map((x) => x.median)))}, ${f2(mean(t.map((x) => x.q3)))}; never ${f2(mean(t.map((x) => x.never)))} of the pairs`);
  console.log(`    share of a task's required strategies its retrieved experience names: ${quarters(q((s, i) => s.carried[i]!.mean))}; all of them: ${quarters(q((s, i) => s.carried[i]!.full))}`);
  console.log(`    spread of that share between agents on a niche (best − worst): ${quarters(q((s, i) => s.spread[i]!))}`);
  if (ss.some((s) => s.sameFamily.some(Number.isFinite))) {
    console.log(`    retrieved niche entries learnt on a task of the same problem family: ${quarters(q((s, i) => s.sameFamily[i]!))}`);
  }
  const buckets = ['none', 'up to half', 'most', 'all'];
  console.log(`    a member's reward by what its experience carried: ${buckets.map((b) => {
    const n = mean(ss.map((s) => s.rewardByCarried[b]?.n ?? 0));
    return `${b} ${f2(mean(ss.filter((s) => s.rewardByCarried[b]).map((s) => s.rewardByCarried[b]!.reward)))} (n ${n.toFixed(0)})`;
  }).join(', ')}`);
}

/**
 * Does experience saturate? (docs/signal.md, "Why this world cannot separate the methods".) On hard
 * (600 tasks) and hard-math, 3 seeds, the full system and the two memory baselines, in today's
 * world and with each world-form mechanism on: per quarter, how many of a niche's strategies each
 * agent holds, how alike agents' holdings are, how soon an agent holds them all, and what retrieval
 * carries into its prompts. Prints; asserts nothing. `SATURATION_TASKS`, `SATURATION_SEEDS`,
 * `SATURATION_FILES` (hard,hard-math), `SATURATION_PRESETS` and `SATURATION_WORLDS` (keys of WORLDS,
 * e.g. `today,families`) shrink it; `SATURATION_WORLD_FILE` runs it in a world file (`paper-qwen3-8b`).
 */
export async function benchSaturation(): Promise<void> {
  const t0 = systemClock.now();
  const seeds = Array.from({ length: Number(process.env.SATURATION_SEEDS ?? 3) }, (_, i) => i + 1);
  const files = (process.env.SATURATION_FILES ?? 'hard,hard-math').split(',');
  // `SATURATION_WORLDS`: keys of WORLDS, comma-separated (`today` alone: today's world only); by default every world not run on request.
  const keys = process.env.SATURATION_WORLDS?.split(',');
  const worlds = keys ? WORLDS.filter((w) => keys.includes(w.key)) : WORLDS.filter((w) => !w.onRequest);
  // `SATURATION_WORLD_FILE`: a world file or bundled world (`paper-qwen3-8b`) every run is in, the mechanisms on top.
  const worldFile = process.env.SATURATION_WORLD_FILE;
  const presets = process.env.SATURATION_PRESETS?.split(',') ?? PRESETS;
  for (const file of files) {
    const base = loadScenario(path.resolve(`scenarios/${file}.json`));
    const tasks = Number(process.env.SATURATION_TASKS ?? base.scenario.stream.tasks);
    for (const world of worlds) {
      console.log(`\n${base.scenario.name}${worldFile ? ` in ${worldFile}` : ''}, ${world.name}: ${tasks} tasks, seeds ${seeds.join(', ')}`);
      const loaded = withOverrides(base, {
        ...(world.sim || worldFile ? { sim: { ...(base.scenario.sim ?? {}), ...(worldFile ? { world: worldFile } : {}), ...world.sim } } : {}),
        ...(world.capacity ? { memory: { capacity: world.capacity } } : {}),
      } as never);
      const { inline, world: file } = scenarioWorld(loaded.scenario.sim);
      const perNiche = worldParams(inline, file).global.strategiesPerNiche;
      for (const preset of presets) {
        const acc: number[] = [];
        const sp: Specialists[] = [];
        const ss: Saturation[] = [];
        for (const seed of seeds) {
          const { summary, runDir } = await runScenario(loaded, { patch: { variant: preset, seed, 'stream.tasks': tasks }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-sat-')) });
          acc.push(summary.accuracy);
          const events = readEvents(runDir);
          const edge = aimedEdge(events);
          sp.push({ stable: summary.stableSpecialists, lead: mean(specialistDynamics(events).meanLead), aimedOwn: edge.own, aimedOthers: edge.others });
          ss.push(experienceSaturation(events, strategyReader(loaded, seed), perNiche));
        }
        print(preset, acc, ss, perNiche, sp);
      }
    }
  }
  console.log(`(${((systemClock.now() - t0) / 1000).toFixed(0)} s)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchSaturation();
