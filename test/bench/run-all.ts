// `npm run bench`: every benchmark in turn. Figures are printed, never asserted.
import { benchAblation } from './ablation.bench';
import { benchCodeGrader } from './code-grader.bench';
import { benchMemory } from './memory.bench';
import { benchQuickstart } from './quickstart.bench';
import { benchReport } from './report.bench';
import { benchServeSim } from './serve-sim.bench';
import { benchStructures } from './structures.bench';

const benches: [string, () => Promise<void>][] = [
  ['quickstart', benchQuickstart],
  ['code grader', benchCodeGrader],
  ['memory', benchMemory],
  ['serve-sim', benchServeSim],
  ['report', benchReport],
  ['ablation (several minutes)', benchAblation],
  ['ablation: LeadLearn vs fixed structures (several minutes)', benchStructures],
];
// `npm run bench -- quick` skips the long ablation.
const quick = process.argv.includes('quick');
for (const [name, run] of benches) {
  if (quick && name.startsWith('ablation')) continue;
  console.log(`\n== ${name}`);
  await run();
}
