import { pathToFileURL } from 'node:url';
import { createActor } from 'xstate';
import { agentMachine } from '../../src/individual/agent-machine';
import { supervisorMachine } from '../../src/population/supervisor-machine';

// Hot paths of a long run: an agent's OBSERVE (its reward history) and the supervisor's
// APPLY_UPDATE (pair synergy). Each used to copy a structure that grows with the run, making
// the cost per event grow with the run's length. Figures: microseconds per event, at the start
// of a run and after many events (flat means linear in the run's length).

const DIM = 16;
const NICHES = ['algebra', 'arithmetic', 'list-fns', 'string-fns', 'people-qa', 'timeline-qa'];

function perEvent(label: string, total: number, checkpoints: number[], send: (i: number) => void): void {
  const figures: string[] = [];
  let i = 0;
  for (const upTo of checkpoints) {
    // Time the last 1000 events before each checkpoint: milliseconds per 1000 events = µs per event.
    while (i < upTo - 1000) send(i++);
    const t0 = performance.now();
    while (i < upTo) send(i++);
    figures.push(`at ${upTo.toLocaleString('en')}: ${(performance.now() - t0).toFixed(1)} µs`);
  }
  console.log(`${label.padEnd(30)} ${figures.join('   ')}  (${total.toLocaleString('en')} events)`);
}

/** One agent observing `n` rewards. */
function benchObserve(n: number): void {
  const agent = createActor(agentMachine, {
    input: { id: 'agent-01', persona: 'p', dim: DIM, eta: 0.1, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } },
  }).start();
  perEvent('agent OBSERVE', n, [1000, n / 4, n], (i) => agent.send({ type: 'OBSERVE', niche: NICHES[i % NICHES.length]!, reward: (i * 7) % 3 / 2, poolVersion: i + 1 }));
}

/** A 64-agent pool committing `n` team outcomes (teams of 3): the synergy table fills up to ~12k (pair, niche) cells. */
function benchSynergy(n: number): void {
  const sup = createActor(supervisorMachine, { input: { dim: DIM, synergyEta: 0.2, synergy0: 0.5 } }).start();
  const A = 64;
  const ids = Array.from({ length: A }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);
  for (const id of ids) sup.send({ type: 'SPAWN_AGENT', input: { id, persona: 'p', dim: DIM, eta: 0.1, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
  perEvent('supervisor APPLY_UPDATE', n, [1000, n / 4, n], (i) => {
    const members = [ids[i % A]!, ids[(i * 5 + 1) % A]!, ids[(i * 11 + 2) % A]!].filter((m, k, a) => a.indexOf(m) === k);
    sup.send({ type: 'APPLY_UPDATE', update: { taskId: `t${i}`, observations: [], experiences: [], team: { members, niche: NICHES[Math.floor(i / 7) % NICHES.length]!, reward: (i % 3) / 2 } } });
  });
  console.log(`${''.padEnd(30)} synergy cells at the end: ${sup.getSnapshot().context.synergy.size}`);
}

/** `npm run bench -- hot`: per-event cost of the two hot paths at 1k, 10k and 40k events. */
export async function benchHotPaths(): Promise<void> {
  benchObserve(40_000);
  benchSynergy(40_000);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchHotPaths();
