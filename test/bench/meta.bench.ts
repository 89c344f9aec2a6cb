import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatAblationTable, loadScenario, runAblation } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';

/**
 * `npm run bench -- meta`: meta-editing on hard (BENCH_META_TASKS tasks, default 600; 3 seeds):
 * the full system, `meta` (edited between segments of 100 tasks) and `no-meta` (the same segments,
 * never edited), with tokens per run, side by side, whichever way it falls. Figures only.
 */
export async function benchMeta(): Promise<void> {
  const tasks = Number(process.env.BENCH_META_TASKS ?? 600);
  const base = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks } });
  const r = await runAblation(base, { variants: ['evochamber', 'no-meta', 'meta'], seeds: 3, outDir: path.join(mkdtempSync(path.join(tmpdir(), 'evo-bench-meta-')), 'ablate') });
  console.log(formatAblationTable(r));
  for (const v of ['meta', 'no-meta']) {
    const runs = r.variants[v]!.runs;
    console.log(`${v}: ${runs.length} runs`);
  }
}

if (process.argv[1]?.endsWith('meta.bench.ts')) await benchMeta();
