import type { ActorRefFrom } from 'xstate';
import type { Rng } from '../../core/rng';
import type { LanguageModel } from '../../llm/model';
import type { EventLog } from '../../store/event-log';
import type { NicheSpec } from '../../tasks/niche';
import type { LifecycleConfig } from './lifecycle-config';
import type { LifecycleOperatorName } from './index';
import { operatorOf, planLifecycle, type LifecycleSwitches } from './plan';
import { viewRoster } from '../../individual/agent-view';
import { specialists, type StabilityTracker } from '../specialization';
import type { supervisorMachine } from '../supervisor-machine';
import { sendToSupervisor } from '../supervisor-ops';

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
  const roster = viewRoster(sup().active);
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
  const apply = {
    supervisor: w.supervisor, model: w.model, log: w.log, specs: w.specs, window: w.window, nichesSeen: w.nichesSeen,
    c0: w.c0, eta: w.eta, version, newId: () => `agent-${String(next++).padStart(2, '0')}`,
    ...(w.config.personaNote ? { personaNote: w.config.personaNote } : {}),
  };
  for (const d of plan.applied) {
    // Each operator applies its own decisions (its descriptor's `apply`).
    const agents = await operatorOf(d).apply(apply, d);
    w.lineage[d.operator] += 1;
    w.log.append({ type: 'lifecycle.decision', window: w.window, operator: d.operator, agents, reason: d.reason, poolVersion: version });
  }
  sendToSupervisor(w.supervisor, { type: 'BUMP_VERSION' });
  return next;
}
