import { createRng } from '../../src/index';
import { AppliedHistory, collectSince } from '../../src/population/staleness/applied-history';
import { getStalenessPolicy } from '../../src/population/staleness';
import { SimModel } from '../../src/sim/sim-model';
import type { UpdateChanges } from '../../src/population/supervisor-machine';
import { agentView } from '../fakes/agents';
import { changes, item } from '../population/staleness/staleness-fixtures';

/**
 * `npm run bench -- staleness`: the cost of a staleness decision's inputs and of the reflective
 * call. A run's history of applied updates (8 agents, 6 niches, up to 6 entries an update) is
 * queried for items with gaps of 1–64 versions: `AppliedHistory.since` (indexed) against
 * `collectSince` (a scan of the whole list), as the run grows. Figures are printed, never asserted.
 */
export async function benchStaleness(): Promise<void> {
  const agents = Array.from({ length: 8 }, (_, i) => `agent-${i}`);
  const niches = ['arithmetic', 'algebra', 'list-functions', 'string-functions', 'people-qa', 'timeline-qa', null];
  const roster = agents.map((a) => agentView(a));
  console.log('| updates applied | since (indexed) per query | collectSince (scan) per query | entries returned (mean) |');
  console.log('|---:|---:|---:|---:|');
  for (const n of [1_000, 10_000, 100_000]) {
    const rng = createRng(`bench/${n}`);
    const log: UpdateChanges[] = [];
    const history = new AppliedHistory(n);
    for (let v = 1; v <= n; v++) {
      const c = changes(v, Array.from({ length: rng.int(7) }, () => [rng.pick(agents), `lesson ${v} ${rng.int(1000)}`, rng.pick(niches)] as [string, string, string | null]));
      log.push(c);
      history.push(c);
    }
    const queries = Array.from({ length: 2_000 }, () => {
      const gap = 1 + rng.int(64);
      return { it: item(rng.pick(agents), 'x', n - gap, rng.pick(niches)), current: n };
    });
    let returned = 0;
    let t = performance.now();
    for (const q of queries) returned += history.since(q.it, q.current, roster).length;
    const indexed = (performance.now() - t) / queries.length;
    const scanned = queries.slice(0, 50);
    t = performance.now();
    for (const q of scanned) collectSince(log, q.it, q.current, roster);
    const scan = (performance.now() - t) / scanned.length;
    console.log(`| ${n} | ${(indexed * 1000).toFixed(1)} µs | ${(scan * 1000).toFixed(1)} µs | ${(returned / queries.length).toFixed(1)} |`);
  }

  const sim = new SimModel({ seed: 1 });
  const [s1, s2] = sim.world.nicheStrategies('algebra');
  const reflective = getStalenessPolicy('reflective');
  const since = [{ kind: 'entry' as const, text: `apply the ${s1!.phrase}`, niche: 'algebra', receiver: 'agent-0', version: 5, source: 'reflection' as const, taskId: 't' }];
  const items = 2_000;
  const t = performance.now();
  for (let i = 0; i < items; i++) {
    await reflective.decide(item('agent-0', `apply the ${s1!.phrase} and the ${s2!.phrase}`, 0), { current: 40, tau: 8, since, roster, model: sim, seedKey: `b/${i}` });
  }
  console.log(`reflective decisions against the simulated model (one call and, for a patch, one embedding each): ${((performance.now() - t) / items * 1000).toFixed(0)} µs per item`);
}
