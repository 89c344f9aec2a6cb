import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_ABLATION_VARIANTS, formatAblationTable, runAblation } from '../../src/engine/sweep/ablate';
import { loadScenario } from '../../src/index';
import { systemClock } from '../../src/core/clock';

/**
 * The population-level claims, measured: every preset on scenarios/hard.json over 3 seeds, then
 * asymmetric vs symmetric CoDream on the six-niche block stream. Prints; asserts nothing.
 * Takes several minutes (36 + 6 runs of 600 tasks).
 */
export async function benchAblation(): Promise<void> {
  const t0 = systemClock.now();
  const hard = await runAblation(loadScenario(path.resolve('scenarios/hard.json')), {
    variants: [...DEFAULT_ABLATION_VARIANTS], seeds: 3, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-abl-')),
  });
  console.log(formatAblationTable(hard));
  const full = hard.variants.evochamber!.accuracy.mean;
  console.log('cost of removing each part (accuracy, full minus ablation):');
  for (const v of ['no-codream', 'no-lifecycle', 'no-team', 'no-leadlearn']) {
    console.log(`  ${v.padEnd(14)} ${(full - hard.variants[v]!.accuracy.mean).toFixed(3)}`);
  }
  const blocks = await runAblation(loadScenario(path.resolve('scenarios/blocks.json')), {
    variants: ['evochamber', 'symmetric-codream'], seeds: 3, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-abl-')),
  });
  console.log(formatAblationTable(blocks));
  console.log(`(${((systemClock.now() - t0) / 1000).toFixed(0)} s)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchAblation();
