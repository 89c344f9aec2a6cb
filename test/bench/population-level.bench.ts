import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';

const SEEDS = [1, 2, 3];

/**
 * From identical seed agents, stable specialists emerge on the six-niche block stream
 * (scenarios/blocks.json, 600 tasks, 6 seed agents), and who they are depends on the seed: over
 * 3 seeds at least three stable (niche, agent) pairs, and no two seeds with any name the same
 * list. Moved here from the suite's population-level test (three 600-task runs, over its limit
 * on a busy machine); the suite keeps the mechanism (each window's specialists and the stable
 * ones follow from the roster's competences and exposures). Checks its claim and fails (exit 1)
 * when it does not hold. At the move: 3, 1 and 1 stable specialists for seeds 1–3 (5 in all).
 */
export async function benchPopulationLevel(): Promise<void> {
  const blocks = loadScenario(path.resolve('scenarios/blocks.json'));
  const rows: { seed: number; count: number; who: string }[] = [];
  for (const seed of SEEDS) {
    const { runDir, summary } = await runScenario(blocks, { seed, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-')) });
    const windows = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'lifecycle.window');
    rows.push({ seed, count: summary.stableSpecialists, who: JSON.stringify(windows.at(-1)?.stable ?? {}) });
  }
  console.log('stable specialists on scenarios/blocks.json (600 tasks, 6 seed agents)');
  for (const r of rows) console.log(`seed ${r.seed}: ${r.count}  ${r.who}`);
  const total = rows.reduce((a, r) => a + r.count, 0);
  const withAny = rows.filter((r) => r.count > 0);
  const claims: [string, boolean][] = [
    [`${total} stable specialists over ${SEEDS.length} seeds (at least 3)`, total >= 3],
    ['who they are depends on the seed (no two seeds with any share the list)', new Set(withAny.map((r) => r.who)).size === withAny.length],
  ];
  for (const [claim, ok] of claims) console.log(`${ok ? 'holds' : 'CLAIM FAILS'}: ${claim}`);
  if (claims.some(([, ok]) => !ok)) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchPopulationLevel();
