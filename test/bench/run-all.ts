// `npm run bench`: every benchmark in turn. Figures are printed; a claim moved here from the suite
// (in-flight, team-level, population-level) is also checked, and a failed check makes the exit status 1.
import { benchAblation } from './ablation.bench';
import { benchAdaptive } from './adaptive.bench';
import { benchAsync } from './async.bench';
import { benchCliStartup } from './cli-startup.bench';
import { benchCodeGrader } from './code-grader.bench';
import { benchDatasetLoad } from './dataset-load.bench';
import { benchDurability } from './durability.bench';
import { benchHotPaths } from './hot-paths.bench';
import { benchInFlight } from './in-flight.bench';
import { benchMemory } from './memory.bench';
import { benchParsers } from './parsers.bench';
import { benchPopulationLevel } from './population-level.bench';
import { benchQuickstart } from './quickstart.bench';
import { benchReport } from './report.bench';
import { benchServeSim } from './serve-sim.bench';
import { benchSaturation } from './saturation.bench';
import { benchSignal } from './signal.bench';
import { benchStaleness } from './staleness.bench';
import { benchStructures } from './structures.bench';
import { benchTeamLevel } from './team-level.bench';
import { benchVirtualTime } from './virtual-time.bench';
import { benchVirtualVsHttp } from './virtual-vs-http.bench';
import { benchSweep } from './sweep.bench';
import { benchSweepSchedule } from './sweep-schedule.bench';
import { benchScale } from './scale.bench';
import { benchSpeed } from './speed.bench';
import { benchMeta } from './meta.bench';
import { benchWatch } from './watch.bench';
import { benchEmbedders } from './embedders.bench';
import { benchCalibrate } from './calibrate.bench';
import { benchRefusedStructure } from './refused-structure.bench';

const benches: [string, () => Promise<void>][] = [
  ['quickstart', benchQuickstart],
  ['cli startup and build', benchCliStartup],
  ['code grader', benchCodeGrader],
  ['memory', benchMemory],
  ['parsers', benchParsers],
  ['staleness', benchStaleness],
  ['serve-sim', benchServeSim],
  ['report', benchReport],
  ['dataset load', benchDatasetLoad],
  ['durability', benchDurability],
  ['hot paths', benchHotPaths],
  ['adaptive concurrency (synthetic server)', benchAdaptive],
  ['in-flight: eight tasks learn as well as one (a few minutes)', benchInFlight],
  ['team-level: the full system beats no-team and no-leadlearn, choices differ by niche (a few minutes)', benchTeamLevel],
  ['population-level: stable specialists emerge on the block stream, who depends on the seed (a minute)', benchPopulationLevel],
  ['virtual time: a 600-task hard run in virtual time (a few minutes)', benchVirtualTime],
  ['virtual-vs-http: virtual time against the same run on serve-sim in real time (a minute)', benchVirtualVsHttp],
  ['ablation (several minutes)', benchAblation],
  ['ablation: LeadLearn vs fixed structures (several minutes)', benchStructures],
  ['async: throughput in virtual time, windows × staleness policies (an hour on 2 cores)', benchAsync],
  ['meta: meta-editing against the full system and its control on hard (several minutes)', benchMeta],
  ['sweep: the hard table on one virtual server, worker processes, plan (an hour on 2 cores)', benchSweep],
  ['sweep-schedule: priorities off/on, with and without --deadline, on one virtual server (hours on 2 cores at full size)', benchSweepSchedule],
  ['watch: commit-to-page latency, a run with 10 pages open, a 100,000-task log (a few minutes)', benchWatch],
  ['scale: 8 to 256 agents x 2,000 tasks, a long 256-agent run, start-up (an hour on 2 cores; EVO_SCALE_* narrow it)', benchScale],
  ['embedders: hashed against use-lite — embeddings/s, paraphrase retrieval, a 600-task run (half an hour on 2 cores)', benchEmbedders],
  ['speed: tasks per CPU-second by preset, CPU by part, a 256-agent growth run, start-up (half an hour; EVO_SPEED_* narrow it)', benchSpeed],
  ['signal: what each level learns, by mechanism, hard and quickstart × 3 seeds (half an hour on 2 cores)', benchSignal],
  ['saturation: does experience saturate, in today\'s world and with each world-form mechanism (about 35 minutes on 2 cores; SATURATION_WORLDS=strategies18,families18 adds the 18-strategy worlds)', benchSaturation],
  ['refused structure: a 40-task run with debate refused (503) against the clean run, over HTTP (a few minutes)', benchRefusedStructure],
  ['calibrate: disjoint-seed recovery of known parameters over 10 replications (coverage), fit table, χ² and p, leave-one-out, prediction and scorecard, evaluations per minute (EVO_CALIBRATE_*; tens of minutes)', benchCalibrate],
];
// `npm run bench -- quick` skips the long ablation; `npm run bench -- parsers` (any bench names)
// runs only those.
const quick = process.argv.includes('quick');
const only = process.argv.slice(2).filter((a) => a !== 'quick');
for (const [name, run] of benches) {
  if (quick && (name.startsWith('ablation') || name.startsWith('in-flight') || name.startsWith('team-level') || name.startsWith('population-level') || name.startsWith('async') || name.startsWith('virtual') || name.startsWith('sweep') || name.startsWith('meta') || name.startsWith('signal') || name.startsWith('saturation') || name.startsWith('calibrate') || name.startsWith('refused') || name.startsWith('watch') || name.startsWith('scale') || name.startsWith('embedders') || name.startsWith('speed'))) continue;
  if (only.length > 0 && !only.some((o) => name.startsWith(o))) continue;
  console.log(`\n== ${name}`);
  await run();
}
