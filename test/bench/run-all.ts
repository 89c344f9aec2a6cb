// `npm run bench`: every benchmark in turn. Figures are printed, never asserted.
import { benchCodeGrader } from './code-grader.bench';
import { benchMemory } from './memory.bench';
import { benchQuickstart } from './quickstart.bench';
import { benchServeSim } from './serve-sim.bench';

const benches: [string, () => Promise<void>][] = [
  ['quickstart', benchQuickstart],
  ['code grader', benchCodeGrader],
  ['memory', benchMemory],
  ['serve-sim', benchServeSim],
];
for (const [name, run] of benches) {
  console.log(`\n== ${name}`);
  await run();
}
