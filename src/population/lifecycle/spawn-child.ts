import type { AgentOrigin } from '../../individual/agent-machine';
import { competenceOf } from '../../individual/competence';
import { viewAgent, viewRoster } from '../../individual/agent-view';
import { median } from '../specialization';
import type { ApplyContext } from './operator';
import { writePersona } from './persona-writer';
import { sendToSupervisor } from '../supervisor-ops';

/** A decision that spawns a child of `parent` aimed at `niche` (genesis, fork). */
export interface SpawnDecision {
  /** Also the child's `origin.kind`. */
  readonly operator: Exclude<AgentOrigin['kind'], 'seed'>;
  readonly parent: string;
  readonly niche: string;
  readonly reason: string;
}

/**
 * Spawn a child of `d.parent` aimed at `d.niche`, its persona written by the model for `purpose`.
 * Returns `[parent, child]`.
 */
export async function spawnChild(w: ApplyContext, d: SpawnDecision, purpose: string): Promise<string[]> {
  const parent = viewAgent(w.supervisor.getSnapshot().context.agents.get(d.parent)!);
  const spec = w.specs.get(d.niche)!;
  const persona = await writePersona(w.model, parent, spec, purpose, `${w.window}-${d.operator}`, w.personaNote);
  const id = w.newId();
  // The child inherits the parent's knowledge (its archive) but not its record. It starts as an
  // average newcomer — the pool's median competence on each niche seen — so it neither ties its
  // parent nor, with an optimistic c0, outranks proven agents and anchors tasks it never worked.
  // Its exposure is the parent's: the archive it holds came from those tasks, so it is not
  // novel there. (A zero exposure made every newborn the scout's favourite on every niche,
  // spreading its experience — and the pool's — thinner instead of building on the parent's.)
  const roster = viewRoster(w.supervisor.getSnapshot().context.active);
  const competence = Object.fromEntries(w.nichesSeen.map((n) => [n, median(roster.map((a) => competenceOf(a, n, w.c0)))]));
  sendToSupervisor(w.supervisor, {
    type: 'SPAWN_AGENT',
    input: {
      id, persona, dim: parent.archive.dim, eta: w.eta, c0: w.c0, archive: parent.archive.clone(), competence, exposure: { ...parent.exposure },
      origin: { kind: d.operator, parents: [parent.id], poolVersion: w.version, reason: d.reason },
    },
  });
  w.log.append({ type: 'agent.spawned', agentId: id, origin: d.operator, parents: [parent.id], persona, reason: d.reason, niche: d.niche, poolVersion: w.version, window: w.window });
  return [parent.id, id];
}
