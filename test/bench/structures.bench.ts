import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatAblationTable, runAblation } from '../../src/engine/sweep/ablate';
import { loadScenario, runScenario } from '../../src/index';

const VARIANTS = ['evochamber', 'fixed-voting', 'fixed-debate', 'fixed-generator-critic', 'fixed-decompose'];
const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-bench-struct-'));

/**
 * LeadLearn against the full system with each structure fixed (quickstart and hard, 3 seeds), and
 * over a 1,200-task quickstart run how the leader's choices move: the share of the structure with
 * the highest mean reward per quarter, and the most-chosen structure per niche. Prints; asserts nothing.
 */
export async function benchStructures(): Promise<void> {
  for (const file of ['scenarios/quickstart.json', 'scenarios/hard.json']) {
    const r = await runAblation(loadScenario(path.resolve(file)), { variants: VARIANTS, seeds: 3, outDir: tmp() });
    console.log(formatAblationTable(r));
    const best = Math.max(...VARIANTS.slice(1).map((v) => r.variants[v]!.accuracy.mean));
    console.log(`evochamber − best fixed: ${(r.variants.evochamber!.accuracy.mean - best).toFixed(3)}`);
  }
  const { runDir } = await runScenario(loadScenario(path.resolve('scenarios/quickstart.json')), { tasks: 1200, report: false, outDir: tmp() });
  const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const chosen = events.filter((e) => e.type === 'structure.chosen');
  const structureOf = new Map(chosen.map((e) => [e.taskId, e.structure as string]));
  const rewards = new Map<string, number[]>();
  for (const e of events.filter((x) => x.type === 'task.graded')) {
    const s = structureOf.get(e.taskId)!;
    rewards.set(s, [...(rewards.get(s) ?? []), e.reward]);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const top = [...rewards].filter(([, xs]) => xs.length >= 20).sort((a, b) => mean(b[1]) - mean(a[1]))[0]![0];
  const q = Math.floor(chosen.length / 4);
  console.log(`1,200-task quickstart: share of ${top} (highest mean reward) by quarter:`,
    [0, 1, 2, 3].map((i) => (chosen.slice(i * q, (i + 1) * q).filter((e) => e.structure === top).length / q).toFixed(3)).join(' → '));
  // The best structure differs by niche in this world: also the share of choices that went to the
  // task's niche's most rewarding structure (in-run mean over at least 10 tasks).
  const nicheRewards = new Map<string, number[]>();
  for (const e of events.filter((x) => x.type === 'task.graded')) {
    const c = chosen.find((x) => x.taskId === e.taskId)!;
    const k = `${c.niche}|${c.structure}`;
    nicheRewards.set(k, [...(nicheRewards.get(k) ?? []), e.reward]);
  }
  const nicheTop = new Map<string, string>();
  for (const [k, xs] of [...nicheRewards].filter(([, xs]) => xs.length >= 10).sort((a, b) => mean(b[1]) - mean(a[1]))) {
    const [n, s] = k.split('|') as [string, string];
    if (!nicheTop.has(n)) nicheTop.set(n, s);
  }
  console.log('share of choices going to the niche\'s most rewarding structure, by quarter:',
    [0, 1, 2, 3].map((i) => (chosen.slice(i * q, (i + 1) * q).filter((e) => e.structure === nicheTop.get(e.niche)).length / q).toFixed(3)).join(' → '),
    JSON.stringify(Object.fromEntries(nicheTop)));
  const byNiche = new Map<string, Map<string, number>>();
  for (const e of chosen) {
    const m = byNiche.get(e.niche) ?? new Map<string, number>();
    m.set(e.structure, (m.get(e.structure) ?? 0) + 1);
    byNiche.set(e.niche, m);
  }
  for (const [n, m] of byNiche) console.log(`  ${n.padEnd(18)} most chosen: ${[...m].sort((a, b) => b[1] - a[1])[0]![0]}  ${JSON.stringify(Object.fromEntries(m))}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchStructures();
