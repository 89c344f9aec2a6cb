import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { systemClock } from '../../src/core/clock';

/**
 * What durability costs on the in-process simulator: the request journal (off by default there)
 * on and off, 240 QA tasks, runs interleaved, median of 3. Prints figures only.
 */
export async function benchDurability(): Promise<void> {
  const base = withOverrides(loadScenario(path.resolve('scenarios/quickstart.json')), { stream: { niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } } as never);
  const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
  let journalBytes = 0;
  let calls = 0;
  for (let i = 0; i < 3; i++) {
    for (const mode of ['off', 'on'] as const) {
      const outDir = mkdtempSync(path.join(tmpdir(), 'evo-bench-'));
      const t0 = systemClock.now();
      const { summary } = await runScenario(base, { patch: { 'stream.tasks': 240 }, report: false, outDir, journal: mode === 'on' });
      times[mode].push((systemClock.now() - t0) / 1000);
      if (mode === 'on') { journalBytes = statSync(path.join(outDir, 'journal.jsonl')).size; calls = summary.tokens.total.calls; }
    }
  }
  const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[1]!;
  console.log('request journal on the simulated model (240 QA tasks, median of 3)');
  console.log(`journal off ${med(times.off).toFixed(2)} s · on ${med(times.on).toFixed(2)} s · ${calls} calls · journal ${(journalBytes / 1e6).toFixed(2)} MB`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchDurability();
