import { pathologicalInputs, randomInputs } from '../fixtures/hostile-text';
import { PARSERS } from '../fixtures/parsers-under-test';
import { mathEquivalent } from '../../src/tasks/graders/math-grader';

/**
 * Worst case at 1 MiB per parser (`npm run bench -- parsers`): every pathological shape (number
 * soups, unclosed tags, long runs of one character, floods of the tokens parsers key on) and four
 * random token soups. Each input is timed three times after a warm-up pass, in CPU time (user +
 * system of this process, so other work on a shared machine does not count), and the best of the
 * three is kept. The budget is 50 ms of CPU per parser at 1 MiB; a parser over it is marked.
 * Figures are printed, never asserted.
 */
/** Timed runs per input; the best is reported. */
const RUNS = 3;
/** CPU budget of one parser at 1 MiB, in milliseconds. */
const BUDGET_MS = 50;

/** CPU milliseconds (user + system) that `fn` takes. */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function benchParsers(): Promise<void> {
  const size = 1024 * 1024;
  const inputs = [...pathologicalInputs(size), ...randomInputs(4, size, 7).map((text, i) => ({ name: `random soup ${i}`, text }))];
  // The symbolic math grader loads mathjs at its first symbolic comparison, once per process: said here, apart.
  const mathjsLoad = cpuMs(() => mathEquivalent('x^2+2x+1', '(x+1)^2'));
  console.log(`symbolic math grading: the first comparison of a process loads mathjs, ${mathjsLoad.toFixed(0)} ms of CPU once (plain numbers never load it)`);
  // Warm-up on a 4 KiB slice of every shape: JIT, and lazily loaded libraries load here, not in the timing.
  for (const parse of Object.values(PARSERS)) {
    for (const input of inputs) {
      try { parse(input.text.slice(0, 4096)); } catch { /* timed below */ }
    }
  }
  console.log(`| parser | worst case at 1 MiB (CPU) | slowest shape | within ${BUDGET_MS} ms |`);
  console.log('|---|---:|---|---|');
  let over = 0;
  for (const [name, parse] of Object.entries(PARSERS)) {
    let worst = 0;
    let shape = '';
    for (const input of inputs) {
      let ms = Infinity;
      for (let run = 0; run < RUNS; run++) {
        ms = Math.min(ms, cpuMs(() => {
          try {
            parse(input.text);
          } catch {
            // rejecting cleanly is allowed; the fuzz test checks that only expected errors occur
          }
        }));
      }
      if (ms > worst) { worst = ms; shape = input.name; }
    }
    if (worst > BUDGET_MS) over++;
    console.log(`| ${name} | ${worst.toFixed(1)} ms | ${shape} | ${worst > BUDGET_MS ? 'NO' : 'yes'} |`);
  }
  console.log(`${Object.keys(PARSERS).length} parsers, ${inputs.length} inputs each; ${over} over ${BUDGET_MS} ms of CPU at 1 MiB`);
}

