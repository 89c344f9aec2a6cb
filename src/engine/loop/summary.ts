import type { SetAside } from '../../team/structure-cooldown';
import type { EndpointUsage } from '../../llm/openai/endpoint';
import type { Cancellations, TokenReport } from '../../llm/token-accounting';
import type { InfraStage } from '../../core/infra-error';
import type { LifecycleOperatorName } from '../../population/lifecycle';
import { DEFAULT_STALENESS_TAU, type StalenessDecision } from '../../population/staleness/policy';

/** Evolve stages that fall back to a default when the model's reply is missing or unusable. */
export type FallbackStage = 'leadlearn' | 'reflect' | 'codream';

const INFRA_STAGES: readonly InfraStage[] = ['solve', 'grade', 'leadlearn', 'reflect', 'codream', 'lifecycle', 'other'];
const FALLBACK_STAGES: readonly FallbackStage[] = ['leadlearn', 'reflect', 'codream'];

/** What the staleness policy did with the lessons and insights it was asked about (docs/how-it-works.md, "Staleness policies"). */
export interface StalenessTally {
  /** The policy run (`engine.staleness.policy`) and the gap it tolerates unexamined. */
  policy: string;
  tau: number;
  /** Items decided, by outcome: applied as they were, applied rewritten, not applied. */
  kept: number;
  patched: number;
  dropped: number;
  /** Model calls the policy made (reflective only: items staler than tau). */
  reflectiveCalls: number;
  /** Items kept because the call failed or its reply was unusable (counted in `kept` too). */
  fallbacks: number;
}

/** Per-niche tallies. */
export interface NicheTally {
  tasks: number;
  rewardSum: number;
  correct: number;
}

/**
 * The run summary. Fields are only ever added, never renamed. Everything except `runDir`,
 * `timing` and `reportPath` is a deterministic function of scenario and seed under the simulated model.
 */
export interface RunSummary {
  scenario: string;
  variant: string;
  seed: number;
  backend: string;
  /** `engine.inFlight` as run: a fixed window, or `"auto"` (the adaptive controller). */
  inFlight: number | 'auto';
  /** Tasks in the stream, graded and failed. */
  tasks: number;
  /** Tasks that were graded (tasks − failures); accuracy, exactRate and perNiche are over these. */
  graded: number;
  /** Mean reward over graded tasks (exact match for math, pass@1 for code, token F1 for qa), 0–1. */
  accuracy: number;
  /** Share of graded tasks solved exactly (qa: normalized exact match), 0–1. */
  exactRate: number;
  /** Niche → mean reward over its graded tasks. */
  perNiche: Record<string, number>;
  /**
   * Tasks that failed for infrastructure reasons (a model call out of retries, a grader or sandbox
   * error): never graded, never scored, and they update nothing. `run` and `ablate` exit 3 when > 0.
   */
  failures: number;
  /** The same failures by the stage they happened in (every stage listed, 0 when none). */
  failuresByStage: Record<InfraStage, number>;
  /**
   * Evolve stages that used a default instead of the model's reply (call out of retries or an
   * unusable reply): LeadLearn choice or note, a member's reflection, an abandoned CoDream session.
   * Each is also a `stage.fallback` event.
   */
  fallbacks: Record<FallbackStage, number>;
  /** Niche → structure → tasks run with it. */
  structures: Record<string, Record<string, number>>;
  /** Share of tasks whose members' final answers were not all equivalent. */
  disagreementRate: number;
  /** LeadLearn: leader replies that could not be used (structure fell back), and bank size. */
  leadlearn: { fallbacks: number; entries: number };
  /**
   * Evolve stages applied (reflection, the leader's note, CoDream: one per graded task), their mean
   * and largest version gap (pool updates applied between computing and applying one), and evolve
   * stages that failed for infrastructure reasons (their task stays graded; nothing of them is
   * applied; `run` exits 3 when > 0).
   */
  evolve: { applied: number; meanGap: number; maxGap: number; failures: number; failuresByStage: Record<InfraStage, number> };
  /** CoDream sessions, insights crystallized, and deliveries to agents. */
  codream: { sessions: number; insights: number; routed: number };
  /** Staleness decisions on lessons and insights (rewards are never subject to them). */
  staleness: StalenessTally;
  /** Niche → its specialist at the last lifecycle window (empty: none leads by the margin). */
  specialists: Record<string, string[]>;
  /** (niche, agent) pairs that held the niche for `stableWindows` consecutive windows up to the last. */
  stableSpecialists: number;
  /** Lifecycle decisions applied, by operator (registry order: genesis, fork, merge, prune, specialize). */
  lineage: Record<LifecycleOperatorName, number>;
  /** Agents ever in the pool (retired included), those still active, and archive sizes over all of them. */
  agents: { count: number; active: number; lessons: number; metaInsights: number };
  reflections: { parsed: number; failed: number };
  /**
   * Speculative completion (docs/how-it-works.md, "Speculative completion"): `cancelled` requests were aborted
   * once a vote's majority was decided (voting, self-consistency), saving `tokensSaved` completion
   * tokens — exact where the backend knows an answer's planned length (the simulator), estimated
   * for the `estimated` ones an HTTP server cut (the stage's mean completion tokens so far, less
   * the pool's estimate of what the request had generated).
   * `debateRoundsSkipped` rounds were not run because the debate reached consensus early;
   * `debateTokensSaved` estimates their cost as the completion tokens of the last round run ×
   * rounds skipped.
   */
  speculative: Speculative;
  tokens: TokenReport;
  poolVersion: number;
  runDir: string;
  /** Wall-clock figures: not part of the deterministic summary. */
  timing: { wallSeconds: number; tasksPerSecond: number };
  /** OpenAI backend only: per-endpoint requests (attempts), retries, failed attempts and tokens, by endpoint name. */
  endpoints?: Record<string, EndpointUsage>;
  /** The run's report (`index.html`), when one was written; not part of the deterministic summary. */
  reportPath?: string;
  /** Virtual time only (`--latency`, docs/backends.md, "Virtual time"): the serve-sim latency profile the run ran behind. */
  latency?: string;
  /** Virtual time only: virtual seconds from the start to the end of the last model request. */
  virtualSeconds?: number;
  /** Virtual time only: tokens the simulated server generated (aborted requests' partial output included) per virtual second. */
  tokensPerSecond?: number;
  /**
   * Virtual time only: tokensPerSecond over the server's maximum output tokens/s for the run's
   * request shape (docs/latency-profiles.md, "Utilization"); null when nothing was generated.
   */
  utilization?: number | null;
  /** Structures set aside on a niche after failures that repeat (team/structure-cooldown.ts); absent when none was. */
  setAside?: SetAside[];
  /**
   * Graded tasks whose team answer was a program the code grader found flaky (two runs, two
   * verdicts: docs/sandbox-threat-model.md, "Determinism"); absent when none was.
   */
  flakyVerdicts?: number;
  /**
   * Meta-editing (the `meta` and `no-meta` presets): segments run, edits accepted and rejected,
   * reverts, knob changes applied, the procedure version the run ended under, and knob values
   * outside their bounds over every procedure version (MetaTally).
   */
  meta?: { segments: number; accepted: number; rejected: number; reverts: number; version: number; changes: number; outOfBounds: number };
}

/** The summary's speculative-completion savings (`RunSummary.speculative`). */
export interface Speculative extends Cancellations {
  debateRoundsSkipped: number;
  debateTokensSaved: number;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Accumulates task results into a summary. */
export class SummaryBuilder {
  private readonly niches = new Map<string, NicheTally>();
  private readonly failures: Record<InfraStage, number> = Object.fromEntries(INFRA_STAGES.map((x) => [x, 0])) as Record<InfraStage, number>;
  private readonly stageFallbacks: Record<FallbackStage, number> = Object.fromEntries(FALLBACK_STAGES.map((x) => [x, 0])) as Record<FallbackStage, number>;
  private readonly structures = new Map<string, Map<string, number>>();
  private disagreements = 0;
  private fallbacks = 0;
  private readonly dreams = { sessions: 0, insights: 0, routed: 0 };
  private readonly debate = { roundsSkipped: 0, tokensSaved: 0 };
  private readonly stale: StalenessTally;
  reflectionsParsed = 0;
  reflectionsFailed = 0;
  private readonly evolveFailed: Record<InfraStage, number> = Object.fromEntries(INFRA_STAGES.map((x) => [x, 0])) as Record<InfraStage, number>;
  private readonly evolveApplied = { applied: 0, gapSum: 0, gapMax: 0 };
  private readonly setAside: SetAside[] = [];
  private flakyVerdicts = 0;

  /** `staleness`: the scenario's `engine.staleness` (default: `full`, which keeps everything). */
  constructor(nicheOrder: readonly string[], staleness: { readonly policy: string; readonly tau: number } = { policy: 'full', tau: DEFAULT_STALENESS_TAU }) {
    for (const n of nicheOrder) this.niches.set(n, { tasks: 0, rewardSum: 0, correct: 0 });
    this.stale = { policy: staleness.policy, tau: staleness.tau, kept: 0, patched: 0, dropped: 0, reflectiveCalls: 0, fallbacks: 0 };
  }

  /** Record a graded task whose verdict the grader marked flaky. */
  addFlaky(): void {
    this.flakyVerdicts += 1;
  }

  /** Record a structure set aside on a niche (failures that repeat). */
  addSetAside(s: SetAside): void {
    this.setAside.push(s);
  }

  /** Record one staleness decision on a lesson or insight (call once per item decided, applied or not). */
  addStaleness(decision: StalenessDecision): void {
    if (decision.action === 'keep') this.stale.kept += 1;
    else if (decision.action === 'patch') this.stale.patched += 1;
    else this.stale.dropped += 1;
    if (decision.calledModel) this.stale.reflectiveCalls += 1;
    if (decision.action === 'keep' && decision.fallback) this.stale.fallbacks += 1;
  }

  /** Record one graded task. */
  add(niche: string, reward: number, correct: boolean): void {
    const t = this.niches.get(niche) ?? { tasks: 0, rewardSum: 0, correct: 0 };
    t.tasks += 1;
    t.rewardSum += reward;
    t.correct += correct ? 1 : 0;
    this.niches.set(niche, t);
  }

  /** Record one task that failed for infrastructure reasons (not graded, not scored). */
  addFailure(niche: string, stage: InfraStage): void {
    if (!this.niches.has(niche)) this.niches.set(niche, { tasks: 0, rewardSum: 0, correct: 0 });
    this.failures[stage] += 1;
  }

  /** Record one evolve stage that failed for infrastructure reasons (its task stays graded; nothing of the stage is applied). */
  addEvolveFailure(stage: InfraStage): void {
    this.evolveFailed[stage] += 1;
  }

  /** Record one applied evolve outcome and its version gap (updates applied between its computation and its application). */
  addEvolveApplied(gap: number): void {
    this.evolveApplied.applied += 1;
    this.evolveApplied.gapSum += gap;
    this.evolveApplied.gapMax = Math.max(this.evolveApplied.gapMax, gap);
  }

  /** Record one evolve-stage fallback. */
  addFallback(stage: FallbackStage): void {
    this.stageFallbacks[stage] += 1;
  }

  private get failureCount(): number {
    return Object.values(this.failures).reduce((a, b) => a + b, 0);
  }

  /** Record how one task was worked: its structure, whether members disagreed, whether LeadLearn fell back. */
  addTeamwork(niche: string, structure: string | null, disagreement: boolean, fallback: boolean): void {
    if (structure) {
      const byNiche = this.structures.get(niche) ?? new Map<string, number>();
      byNiche.set(structure, (byNiche.get(structure) ?? 0) + 1);
      this.structures.set(niche, byNiche);
    }
    if (disagreement) this.disagreements += 1;
    if (fallback) this.fallbacks += 1;
  }

  /** Record one CoDream session. */
  addDream(insights: number, routed: number): void {
    this.dreams.sessions += 1;
    this.dreams.insights += insights;
    this.dreams.routed += routed;
  }

  /** Record rounds a structure skipped (debate's early consensus) and their estimated tokens. */
  addEarlyStop(roundsSkipped: number, tokensSaved: number): void {
    this.debate.roundsSkipped += roundsSkipped;
    this.debate.tokensSaved += tokensSaved;
  }

  /** Tasks committed so far (graded and failed) and mean reward over the graded ones. */
  progress(): { done: number; accuracy: number } {
    let graded = 0;
    let sum = 0;
    for (const t of this.niches.values()) { graded += t.tasks; sum += t.rewardSum; }
    return { done: graded + this.failureCount, accuracy: graded ? sum / graded : 0 };
  }

  /**
   * The summary, given the fields only the engine knows. `cancellations` are the model wrapper's
   * (`AccountingModel.cancellations()`); none when omitted.
   */
  build(rest: Omit<RunSummary, 'tasks' | 'graded' | 'accuracy' | 'exactRate' | 'perNiche' | 'failures' | 'failuresByStage' | 'fallbacks' | 'reflections' | 'structures' | 'disagreementRate' | 'leadlearn' | 'codream' | 'evolve' | 'staleness' | 'speculative'> & { leadlearnEntries: number; cancellations?: Cancellations }): RunSummary {
    let tasks = 0;
    let sum = 0;
    let correct = 0;
    const perNiche: Record<string, number> = {};
    for (const [n, t] of this.niches) {
      tasks += t.tasks;
      sum += t.rewardSum;
      correct += t.correct;
      if (t.tasks > 0) perNiche[n] = round(t.rewardSum / t.tasks);
    }
    const { scenario, variant, seed, backend, inFlight, leadlearnEntries, cancellations, ...tail } = rest;
    const structures: Record<string, Record<string, number>> = {};
    for (const n of this.niches.keys()) {
      const byNiche = this.structures.get(n);
      if (byNiche) structures[n] = Object.fromEntries([...byNiche].sort(([a], [b]) => a.localeCompare(b)));
    }
    const failures = this.failureCount;
    return {
      scenario, variant, seed, backend, inFlight,
      tasks: tasks + failures,
      graded: tasks,
      accuracy: tasks ? round(sum / tasks) : 0,
      exactRate: tasks ? round(correct / tasks) : 0,
      perNiche,
      failures,
      failuresByStage: { ...this.failures },
      fallbacks: { ...this.stageFallbacks },
      reflections: { parsed: this.reflectionsParsed, failed: this.reflectionsFailed },
      structures,
      disagreementRate: tasks + failures ? round(this.disagreements / (tasks + failures)) : 0,
      leadlearn: { fallbacks: this.fallbacks, entries: leadlearnEntries },
      codream: { ...this.dreams },
      evolve: {
        applied: this.evolveApplied.applied,
        meanGap: this.evolveApplied.applied ? round(this.evolveApplied.gapSum / this.evolveApplied.applied) : 0,
        maxGap: this.evolveApplied.gapMax,
        failures: Object.values(this.evolveFailed).reduce((a, b) => a + b, 0),
        failuresByStage: { ...this.evolveFailed },
      },
      staleness: { ...this.stale },
      speculative: {
        ...(cancellations ?? { cancelled: 0, tokensSaved: 0, estimated: 0 }),
        debateRoundsSkipped: this.debate.roundsSkipped, debateTokensSaved: this.debate.tokensSaved,
      },
      // Only when it happened, so summaries of runs without it stay as they were.
      ...(this.setAside.length > 0 ? { setAside: this.setAside.map((s) => ({ ...s })) } : {}),
      ...(this.flakyVerdicts > 0 ? { flakyVerdicts: this.flakyVerdicts } : {}),
      ...tail,
    };
  }
}
