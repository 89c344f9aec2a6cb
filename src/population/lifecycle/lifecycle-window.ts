import type { ActorRefFrom } from 'xstate';
import type { Rng } from '../../core/rng';
import type { LanguageModel } from '../../llm/model';
import type { EventLog } from '../../store/event-log';
import type { NicheSpec } from '../../tasks/niche';
import { writePersona } from './persona-writer';
import type { LifecycleConfig } from './lifecycle-config';
import type { LifecycleDecision, LifecycleOperatorName } from './operator';
import { planLifecycle, type LifecycleSwitches } from './plan';
import { viewAgent, viewRoster } from '../../individual/agent-view';
import { median, specialists, type StabilityTracker } from '../specialization';
import { competenceOf } from '../../individual/competence';
import type { supervisorMachine } from '../supervisor-machine';

/** Everything one lifecycle window needs. */
export interface WindowInput {
  readonly supervisor: ActorRefFrom<typeof supervisorMachine>;
  readonly model: LanguageModel;
  readonly log: EventLog;
  readonly config: LifecycleConfig;
  readonly teamSize: number;
  /** Whether the preset runs the operators (metrics are recorded either way). */
  readonly operators: boolean;
  readonly switches?: LifecycleSwitches;
  readonly window: number;
  /** Tasks committed so far. */
  readonly tasksSeen: number;
  readonly nichesSeen: readonly string[];
  readonly recentNiches: Readonly<Record<string, number>>;
  readonly specs: ReadonlyMap<string, NicheSpec>;
  readonly c0: number;
  readonly eta: number;
  readonly tracker: StabilityTracker;
  readonly lineage: Record<LifecycleOperatorName, number>;
  /** Next free agent number (agent-NN); the window returns the updated value. */
  readonly nextAgent: number;
  readonly rng: Rng;
}

/**
 * One lifecycle window: record who specializes in what, then (when the preset runs lifecycle)
 * plan genesis / fork / merge / prune / specialize on the current roster and apply the plan
 * through the supervisor, writing new personas with the model. Every decision and skip is logged
 * with its reason. Returns the next free agent number.
 */
export async function runLifecycleWindow(w: WindowInput): Promise<number> {
  const sup = () => w.supervisor.getSnapshot().context;
  const roster = viewRoster(sup().agents);
  const specs = specialists(roster, w.nichesSeen, w.c0, w.config.specialist.margin, w.config.specialist.minExposure);
  w.tracker.record(specs);
  w.log.append({
    type: 'lifecycle.window', window: w.window, poolVersion: sup().poolVersion, tasksSeen: w.tasksSeen,
    roster: roster.map((a) => ({ agentId: a.id, competence: a.competence, exposure: a.exposure })), specialists: specs,
    stable: w.tracker.stable(),
  });
  if (!w.operators) return w.nextAgent;

  const history = w.tracker.history();
  const unspecializedFor = Object.fromEntries(w.nichesSeen.map((n) => {
    let k = 0;
    for (let i = history.length - 1; i >= 0 && !history[i]![n]; i--) k++;
    return [n, k];
  }));
  const plan = planLifecycle({
    unspecializedFor, roster, niches: w.nichesSeen, recentNiches: w.recentNiches, window: w.window, poolVersion: sup().poolVersion, c0: w.c0,
    bounds: { minAgents: w.config.minAgents, maxAgents: w.config.maxAgents, teamSize: w.teamSize }, config: w.config, rng: w.rng,
    nicheTerms: Object.fromEntries([...w.specs].map(([id, s]) => [id, [s.title, ...s.keywords]])),
  }, w.switches);
  let next = w.nextAgent;
  for (const s of plan.skipped) {
    w.log.append({ type: 'lifecycle.skipped', window: w.window, operator: s.decision.operator, reason: s.decision.reason, because: s.because });
  }
  if (plan.applied.length === 0) return next;
  const version = sup().poolVersion + 1;
  for (const d of plan.applied) {
    const agents = await apply(w, d, () => `agent-${String(next++).padStart(2, '0')}`, version);
    w.lineage[d.operator] += 1;
    w.log.append({ type: 'lifecycle.decision', window: w.window, operator: d.operator, agents, reason: d.reason, poolVersion: version });
  }
  w.supervisor.send({ type: 'BUMP_VERSION' });
  return next;
}

async function apply(w: WindowInput, d: LifecycleDecision, newId: () => string, version: number): Promise<string[]> {
  const ref = (id: string) => w.supervisor.getSnapshot().context.agents.get(id)!;
  switch (d.operator) {
    case 'genesis':
    case 'fork': {
      const parent = viewAgent(ref(d.parent));
      const spec = w.specs.get(d.niche)!;
      const purpose = d.operator === 'genesis'
        ? `A new agent joins the team to cover an area nobody specialises in yet. Starting from the persona below, write its persona aimed at this area.`
        : `Clone the agent below, which dominates this area, with a mutated persona: keep what works, sharpen it toward this area, change the emphasis.`;
      const persona = await writePersona(w.model, parent, spec, purpose, `${w.window}-${d.operator}`);
      const id = newId();
      // The child inherits the parent's knowledge (its archive) but not its record. It starts as an
      // average newcomer — the pool's median competence on each niche seen — so it neither ties its
      // parent nor, with an optimistic c0, outranks proven agents and anchors tasks it never worked.
      // Its exposure is the parent's: the archive it holds came from those tasks, so it is not
      // novel there. (A zero exposure made every newborn the scout's favourite on every niche,
      // spreading its experience — and the pool's — thinner instead of building on the parent's.)
      const roster = viewRoster(w.supervisor.getSnapshot().context.agents);
      const competence = Object.fromEntries(w.nichesSeen.map((n) => [n, median(roster.map((a) => competenceOf(a, n, w.c0)))]));
      w.supervisor.send({
        type: 'SPAWN_AGENT',
        input: {
          id, persona, dim: parent.archive.dim, eta: w.eta, c0: w.c0, archive: parent.archive.clone(), competence, exposure: { ...parent.exposure },
          origin: { kind: d.operator, parents: [parent.id], poolVersion: version, reason: d.reason },
        },
      });
      w.log.append({ type: 'agent.spawned', agentId: id, origin: d.operator, parents: [parent.id], persona, reason: d.reason, niche: d.niche, poolVersion: version, window: w.window });
      return [parent.id, id];
    }
    case 'merge':
      w.supervisor.send({ type: 'MERGE_AGENTS', keep: d.keep, retire: d.retire });
      w.log.append({ type: 'agent.retired', agentId: d.retire, reason: d.reason, successor: d.keep, window: w.window, poolVersion: version });
      return [d.keep, d.retire];
    case 'prune':
      w.supervisor.send({ type: 'RETIRE_AGENT', id: d.agent });
      w.log.append({ type: 'agent.retired', agentId: d.agent, reason: d.reason, successor: null, window: w.window, poolVersion: version });
      return [d.agent];
    case 'specialize': {
      const agent = viewAgent(ref(d.agent));
      const persona = await writePersona(w.model, agent, w.specs.get(d.niche)!, 'Nudge this strong agent\'s persona toward the area it dominates.', `${w.window}-specialize`);
      w.supervisor.send({ type: 'SET_PERSONA', id: d.agent, persona });
      w.log.append({ type: 'agent.persona', agentId: d.agent, persona, reason: d.reason, niche: d.niche, window: w.window, poolVersion: version });
      return [d.agent];
    }
  }
}
