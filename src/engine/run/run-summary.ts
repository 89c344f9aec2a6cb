import { viewRoster } from '../../individual/agent-view';
import type { LifecycleOperatorName } from '../../population/lifecycle';
import type { StabilityTracker } from '../../population/specialization';
import type { Supervisor } from '../../population/supervisor-ops';
import type { EngineResult } from '../loop/engine';
import type { BackendModel, VirtualLatency } from '../scenario/model-plugins';
import type { ModelStack } from './model-stack';
import type { Scenario } from '../scenario/scenario-schema';
import type { RunSummary, SummaryBuilder } from '../loop/summary';
import type { MetaTally } from '../meta/meta-harness';

/** What the run's summary is made of, once its engine loop has ended. */
export interface FinalSummaryInput {
  readonly scenario: Scenario;
  readonly backend: BackendModel;
  readonly stack: ModelStack;
  readonly supervisor: Supervisor;
  readonly summary: SummaryBuilder;
  readonly tracker: StabilityTracker;
  readonly lineage: Record<LifecycleOperatorName, number>;
  readonly outcome: EngineResult;
  readonly runDir: string;
  readonly wallSeconds: number;
  /** Meta-editing (the meta presets): segments and edits. */
  readonly meta?: MetaTally;
}

/** The run's summary (of the committed tasks, when it was interrupted): the engine's tallies plus the pool as it ended. */
export function finalSummary(i: FinalSummaryInput): RunSummary {
  const { scenario } = i;
  const sup = i.supervisor.getSnapshot().context;
  const roster = viewRoster(sup.agents, false);
  const endpoints = i.backend.endpointUsage();
  return i.summary.build({
    scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, backend: i.backend.model.name, inFlight: scenario.engine.inFlight,
    agents: {
      count: roster.length,
      active: roster.filter((r) => r.status === 'active').length,
      lessons: roster.reduce((a, r) => a + r.archive.size() - r.archive.metaSize(), 0),
      metaInsights: roster.reduce((a, r) => a + r.archive.metaSize(), 0),
    },
    tokens: i.stack.model.report(),
    cancellations: i.stack.model.cancellations(),
    poolVersion: sup.poolVersion,
    leadlearnEntries: sup.bank.size,
    specialists: Object.fromEntries(Object.entries(i.tracker.history().at(-1) ?? {}).map(([n, a]) => [n, a ? [a] : []])),
    stableSpecialists: i.tracker.count(),
    lineage: i.lineage,
    runDir: i.runDir,
    timing: { wallSeconds: Math.round(i.wallSeconds * 1000) / 1000, tasksPerSecond: Math.round((i.outcome.committed / Math.max(i.wallSeconds, 1e-9)) * 10) / 10 },
    ...(endpoints ? { endpoints } : {}),
    ...virtualFigures(i.backend.latency),
    ...(i.meta ? { meta: { ...i.meta } } : {}),
  });
}

/** The summary's virtual-time fields (present only in virtual time; deterministic for a seed). */
function virtualFigures(latency: VirtualLatency | undefined): Pick<RunSummary, 'latency' | 'virtualSeconds' | 'tokensPerSecond' | 'utilization'> {
  const s = latency?.stats();
  if (!latency || !s) return {};
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    latency: latency.profile,
    virtualSeconds: Math.round(s.virtualSeconds * 1000) / 1000,
    tokensPerSecond: Math.round(s.tokensPerSecond * 10) / 10,
    utilization: s.utilization === null ? null : r4(s.utilization),
  };
}
