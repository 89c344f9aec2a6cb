import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';
import { systemClock } from '../../src/core/clock';

/** Simulated tasks per second on the quickstart scenario, per variant and window. Prints figures only. */
export async function benchQuickstart(): Promise<void> {
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  console.log('quickstart throughput (simulated model, virtual time; code tasks graded in the sandbox)');
  console.log('variant            in-flight  tasks  seconds  tasks/s');
  for (const [variant, inFlight] of [['single-agent', 1], ['individual', 1], ['individual', 8], ['self-consistency', 1]] as const) {
    const t0 = systemClock.now();
    const { summary } = await runScenario(base, { variant, inFlight, tasks: 600, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-')) });
    const s = (systemClock.now() - t0) / 1000;
    console.log(`${variant.padEnd(18)} ${String(inFlight).padStart(9)}  ${String(summary.tasks).padStart(5)}  ${s.toFixed(2).padStart(7)}  ${(summary.tasks / s).toFixed(1).padStart(7)}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchQuickstart();
