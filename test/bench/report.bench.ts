import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';
import { systemClock } from '../../src/core/clock';
import { writeReport } from '../../src/report';

/** Time to report a 5,000-task simulated run (the run itself is not timed). Prints figures only. */
export async function benchReport(): Promise<void> {
  const tasks = 5000;
  const root = mkdtempSync(path.join(tmpdir(), 'evo-bench-report-'));
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  console.log(`report of a ${tasks}-task simulated run (quickstart, variant individual); generating the run first…`);
  const { runDir } = await runScenario(base, { variant: 'individual', tasks, outDir: path.join(root, 'run'), report: false });
  const mb = statSync(path.join(runDir, 'events.jsonl')).size / 1e6;
  const t0 = systemClock.now();
  const r = await writeReport(runDir, { outDir: path.join(root, 'report') });
  const s = (systemClock.now() - t0) / 1000;
  const kb = statSync(r.indexPath).size / 1e3;
  console.log(`events.jsonl ${mb.toFixed(1)} MB → index.html ${kb.toFixed(0)} kB: report in ${s.toFixed(2)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchReport();
