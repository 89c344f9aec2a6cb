import { pathologicalInputs, randomInputs } from '../fixtures/hostile-text';
import { PARSERS } from '../fixtures/parsers-under-test';

/** Worst case at 1 MB per parser, over the pathological shapes and some random token soups. */
export async function benchParsers(): Promise<void> {
  const size = 1024 * 1024;
  const inputs = [...pathologicalInputs(size), ...randomInputs(4, size, 7).map((text, i) => ({ name: `random soup ${i}`, text }))];
  console.log('| parser | worst case at 1 MB | slowest shape |');
  console.log('|---|---:|---|');
  for (const [name, parse] of Object.entries(PARSERS)) {
    let worst = 0;
    let shape = '';
    for (const input of inputs) {
      const start = performance.now();
      try {
        parse(input.text);
      } catch {
        // rejecting cleanly is allowed; the fuzz test checks that only expected errors occur
      }
      const ms = performance.now() - start;
      if (ms > worst) { worst = ms; shape = input.name; }
    }
    console.log(`| ${name} | ${worst.toFixed(1)} ms | ${shape} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchParsers();
