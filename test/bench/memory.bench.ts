import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadScenario, runScenario } from '../../src/index';

/**
 * Accuracy of single-agent, self-consistency and individual over 3 seeds on a 600-task stream.
 * Checks that memory pays: individual beats single-agent on the mean (exit 1 when it does not).
 * Moved here from the suite's memory-matters test (six 300-task runs; the suite keeps the
 * mechanism: an agent retrieves its own earlier lessons). There, at 300 tasks: individual 0.482
 * vs single-agent 0.369 over seeds 1-3.
 */
export async function benchMemory(): Promise<void> {
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  const variants = ['single-agent', 'self-consistency', 'individual'];
  console.log('accuracy on 600 tasks of the six built-in niches (simulated model)');
  console.log(`seed  ${variants.map((v) => v.padStart(17)).join('')}`);
  const sums = variants.map(() => 0);
  for (const seed of [1, 2, 3]) {
    const accs: number[] = [];
    for (const variant of variants) {
      const { summary } = await runScenario(base, { variant, seed, tasks: 600, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-bench-')) });
      accs.push(summary.accuracy);
    }
    accs.forEach((a, i) => (sums[i]! += a));
    console.log(`${String(seed).padEnd(4)}  ${accs.map((a) => a.toFixed(3).padStart(17)).join('')}`);
  }
  console.log(`mean  ${sums.map((s) => (s / 3).toFixed(3).padStart(17)).join('')}`);
  const [sa, ind] = [sums[0]! / 3, sums[2]! / 3];
  const ok = ind > sa;
  console.log(`${ok ? 'holds' : 'CLAIM FAILS'}: individual − single-agent ${(ind - sa).toFixed(3)} > 0: memory pays`);
  if (!ok) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchMemory();
