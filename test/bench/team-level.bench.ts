import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';

const TASKS = 360;
const SEEDS = [1, 2, 3];

/**
 * The team level pays: the full system beats no-team (a random three that always votes) on the
 * quickstart, 3 seeds × 360 tasks each. Moved here from the suite's team-level test (three more
 * 360-task runs, half a minute of CI each time; LeadLearn vs no-leadlearn stays there). Like the
 * in-flight bench it checks its claim and fails (exit 1) when it does not hold.
 * At the move: evochamber mean 0.763, no-team 0.611 (the suite's last run of the same seeds).
 */
export async function benchTeamLevel(): Promise<void> {
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  const acc: Record<string, number[]> = { evochamber: [], 'no-team': [] };
  for (const variant of Object.keys(acc)) {
    for (const seed of SEEDS) {
      const { summary } = await runScenario(base, { patch: { variant, seed, 'stream.tasks': TASKS }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-')) });
      if (summary.tasks !== TASKS) throw new Error(`${variant}, seed ${seed}: ${summary.tasks} tasks`);
      acc[variant]!.push(summary.accuracy);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [full, noTeam] = [mean(acc.evochamber!), mean(acc['no-team']!)];
  console.log(`quickstart, ${SEEDS.length} seeds × ${TASKS} tasks`);
  console.log(`variant      ${SEEDS.map((s) => `seed ${s}`.padStart(8)).join('')}    mean`);
  for (const [v, xs] of Object.entries(acc)) console.log(`${v.padEnd(12)} ${xs.map((a) => a.toFixed(3).padStart(8)).join('')}${mean(xs).toFixed(3).padStart(8)}`);
  const ok = full > noTeam;
  console.log(`evochamber − no-team ${(full - noTeam).toFixed(3)}: ${ok ? 'the team level pays' : 'CLAIM FAILS'}`);
  if (!ok) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchTeamLevel();
