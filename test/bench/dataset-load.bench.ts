import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario } from '../../src/index';
import { buildNiches, GraderSet } from '../../src/tasks/niche-registry';
import { systemClock } from '../../src/core/clock';
import { taskStream } from '../../src/tasks/stream';

/**
 * Loading a large dataset niche: an 80,000-row GSM8K file (one difficulty level, so every row
 * lands in one list) written to a temp dir, then the time to build its niche and to draw an
 * 80,000-task stream from it. Prints figures only. Loading was quadratic once (each row copied
 * the level's list): 83 s to 144 s for these rows, about 1 s since.
 */
export async function benchDatasetLoad(rows = 80_000): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-dataset-'));
  try {
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) {
      const a = (i * 7919) % 1000;
      const b = (i * 104729) % 1000;
      lines.push(JSON.stringify({ question: `Row ${i}: Ann has ${a} apples and buys ${b} more. How many apples does she have?`, answer: `${a} + ${b} = ${a + b}\n#### ${a + b}` }));
    }
    writeFileSync(path.join(dir, 'gsm8k.jsonl'), `${lines.join('\n')}\n`);
    const scenarioFile = path.join(dir, 'big.json');
    writeFileSync(scenarioFile, JSON.stringify({
      name: 'big', variant: 'single-agent',
      stream: { order: 'interleaved', tasks: rows, niches: [{ id: 'gsm', dataset: { format: 'gsm8k', path: 'gsm8k.jsonl' } }] },
    }));
    const { scenario, dir: scenarioDir } = loadScenario(scenarioFile);
    const graders = new GraderSet({ codeWorkers: 1, codeTimeoutMs: 3000 });
    try {
      const t0 = systemClock.now();
      const niches = buildNiches(scenario.stream.niches, scenarioDir, graders);
      const loadMs = systemClock.now() - t0;
      const t1 = systemClock.now();
      let drawn = 0;
      for (const _ of taskStream({ ...scenario.stream, entries: scenario.stream.niches, niches, seed: scenario.seed })) drawn++;
      const streamMs = systemClock.now() - t1;
      console.log(`${rows} GSM8K rows: niche built in ${(loadMs / 1000).toFixed(2)} s; ${drawn}-task stream drawn in ${(streamMs / 1000).toFixed(2)} s`);
    } finally {
      await graders.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchDatasetLoad(Number(process.argv[2] ?? 80_000));
