// EvoChamber's public API: load a scenario, override parts of it, run it, compare results.

import type { LoadedScenario } from './engine/scenario/scenario';
import * as engineRun from './engine/run/run-scenario';
import * as engineAblate from './engine/sweep/ablate';
import { withReport, type RunReportOption } from './report/report-after-run';
import { useBuiltinPlugins, withSweepDefaults } from './cli/composition';

// The package entry is where models are composed, as the CLI is: it plugs in the simulated model (the engine never names it).
useBuiltinPlugins();

/** Options of `runScenario`: the engine's, plus the HTML report written when the run finishes. */
export interface RunOptions extends engineRun.RunOptions {
  /** Write the run's report when it finishes (default: yes, into `reports/<run-id>/`); `false` skips it. */
  readonly report?: RunReportOption;
}

/** Options of `resumeRun`: the engine's, plus the HTML report written when the run finishes. */
export interface ResumeOptions extends engineRun.ResumeOptions {
  /** As `RunOptions.report`. */
  readonly report?: RunReportOption;
}

/**
 * Run a scenario end to end (engine/run/run-scenario.ts) and, once it finishes, write its report
 * unless `report: false`. The engine itself knows nothing of reports (report/ sits beside it).
 */
export function runScenario(loaded: LoadedScenario, opts: RunOptions = {}): Promise<engineRun.RunResult> {
  return engineRun.runScenario(loaded, withReport(opts));
}

/**
 * Run each variant over the same seeds and compare them (engine/sweep/ablate.ts). Where models are
 * composed, the simulator's runs spread over worker processes on every core (`jobs`, default the
 * core count), each as deterministic as alone.
 */
export function runAblation(loaded: LoadedScenario, opts: engineAblate.AblationOptions = {}): Promise<engineAblate.AblationResult> {
  return engineAblate.runAblation(loaded, withSweepDefaults(opts));
}

/** As `runAblation`, but an interrupted ablation gives a null result (engine/sweep/ablate.ts). */
export function runAblationResumable(loaded: LoadedScenario, opts: engineAblate.AblationOptions = {}): ReturnType<typeof engineAblate.runAblationResumable> {
  return engineAblate.runAblationResumable(loaded, withSweepDefaults(opts));
}

/** Continue an interrupted ablation from its directory (engine/sweep/ablate.ts). */
export function resumeAblation(dir: string, opts: Parameters<typeof engineAblate.resumeAblation>[1] = {}): ReturnType<typeof engineAblate.resumeAblation> {
  return engineAblate.resumeAblation(dir, withSweepDefaults(opts));
}

/** Continue an interrupted or crashed run (engine/run/run-scenario.ts), writing its report as `runScenario` does. */
export function resumeRun(runDir: string, opts: ResumeOptions = {}): Promise<engineRun.RunResult> {
  return engineRun.resumeRun(runDir, withReport(opts));
}

// Scenarios and runs
export { loadScenario, parseScenario, withOverrides, ScenarioError, bundledScenarios, resolveScenario, BUNDLED_SCENARIOS_DIR, type LoadedScenario, type DeepPartial } from './engine/scenario/scenario';
export { scenarioSchema, type Scenario, type ScenarioInput, type InFlight } from './engine/scenario/scenario-schema';
export { AdaptiveConcurrency, type ConcurrencyStage, type ConcurrencyChange, type ConcurrencyReason } from './engine/loop/concurrency/adaptive';
export { autoConfigSchema, autoConfigOf, autoGapBound, DEFAULT_AUTO, type AutoConfig, type AutoConfigInput } from './engine/scenario/auto-config';
export { concurrencyEvent, recordedChanges, type ConcurrencyEvent } from './engine/loop/concurrency/concurrency-event';
export { ReplayedConcurrency, type ConcurrencyController } from './engine/loop/concurrency/replayed';
export { type NicheEntry } from './tasks/niche-entry';
export { applyRunOptions, RunDirExistsError, type AfterRun, type StopOptions, type ExtensionOptions, type RunResult } from './engine/run/run-scenario';
export type { RunSummary, Speculative } from './engine/loop/summary';
export type { Progress } from './engine/loop/engine';
export { PRESETS, getPreset, ASSEMBLERS, STRUCTURES, type Preset } from './engine/scenario/presets';
export { createRng, type Rng } from './core/rng';
export { hash32 } from './core/hash';
export { systemClock, ManualClock, type Clock } from './core/clock';
export { taskRunMachine, type TaskOutcome } from './engine/loop/task-run-machine';
export { runEvolve, type EvolveOutcome } from './engine/loop/evolve-stage';
export { EvolvePipeline, type EvolvePipelineOptions } from './engine/loop/evolve-pipeline';

// Individual level
export { agentMachine, type AgentContext, type AgentEvent, type AgentInput, type AgentOrigin } from './individual/agent-machine';
export { Archive, type ArchiveEntry } from './individual/archive';
export { RewardHistory, type HistoryEntry } from './individual/reward-history';
export { observe, competenceOf, type CompetenceState, type CompetenceParams } from './individual/competence';
export { buildSolvePrompt, buildReflectPrompt, formatExperience, type Experience } from './individual/agent-prompts';
export { parseReflection } from './individual/reflection-parse';
export { reflect, type Reflection, type ReflectRequest } from './individual/reflection';
export { loadPersonaTemplate, type PersonaTemplate } from './individual/persona-template';

// Team level
export { majorityDecided, vote, type VoteResult } from './team/operators/vote';
export { answerUntilDecided, type AnswerCall } from './team/operators/speculative';
export { generate, type Attempt } from './team/operators/generate';
export { cancelledMembers, type EarlyStop, type Structure, type StructureContext, type StructureResult, type StructureDescriptor } from './team/structures/structure';
export { BUILTIN_STRUCTURES, structureRegistry, choosableStructures, type StructureRegistry } from './team/structures';
export type { Assembler, AssemblyContext, AssemblerDescriptor } from './team/assemblers/assembler';
export { BUILTIN_ASSEMBLERS } from './team/assemblers';
export type { Team, TeamMember, Role } from './team/team';

// Population level
export { supervisorMachine, rejectSupervisorEvent, type SupervisorEmitted, type PoolUpdate, type UpdateChanges, type ExperienceRequest } from './population/supervisor-machine';
export { sendToSupervisor, applyPoolUpdate, supervisorFailure, SupervisorFailedError, SupervisorRejectedError, type Supervisor, type AppliedUpdate } from './population/supervisor-ops';
export { type AgentRef } from './individual/agent-machine';
export { viewAgent, viewRoster, AgentFailedError, type AgentView } from './individual/agent-view';

// Models
export { CompletionAbortedError, isCompletionAborted, type LanguageModel, type CompletionRequest, type Completion, type ChatMessage, type Stage, type Usage } from './llm/model';
export { AccountingModel, type Cancellations, type TokenReport, type StageUsage } from './llm/token-accounting';
export { createHashEmbedder } from './llm/hash-embedder';
export { cosine } from './core/vector';
export { parseJsonLoose } from './llm/parse-json';
export { SimModel, type SimModelOptions } from './sim/sim-model';
export { SimSideChannel, type SideChannelEntry, type SimTask, type SimNiche } from './sim/side-channel';
export { simPlugin, simLatency, AUTO_LATENCY_PROFILE, type SimScenario } from './sim/sim-plugin';
export { ServedSideChannelModel, SideChannelRefusedError, SIDE_CHANNEL_FIELD, assertLoopback } from './sim/served-side-channel';
export { isLoopbackHost, isLoopbackURL } from './core/loopback';
export { DEFAULT_SIM_PARAMS, resolveSimParams, type SimParams } from './sim/sim-params';
export { SimWorld, type Strategy } from './sim/sim-world';
export { createModel, useModel, offlineModel, backendFor, buildModelStack, UnknownBackendError, type ModelStack, type CreateModelDeps } from './engine/run/model-stack';
export { registerModelPlugin, modelPlugins, type ModelPlugin, type BackendModel, type VirtualLatency, type VirtualStats, type ScenarioIssue } from './engine/scenario/model-plugins';
export type { TaskObserver } from './engine/scenario/task-observer';
export { OpenAIPoolModel, ModelRequestError, type PoolDeps } from './llm/openai/openai-pool-model';
export { openaiModelSchema, type OpenAIModelConfig, type EndpointConfig, type EndpointConfigInput } from './llm/openai/openai-config';
export type { EndpointStats, EndpointUsage } from './llm/openai/endpoint';
export { startServeSim, type ServeSim, type ServeSimOptions, type RecordedRequest } from './sim/server/serve-sim';
export { PROFILES, getProfile, type LatencyProfile, type BatchProfile, type ApiProfile } from './llm/latency-profiles';

// Tasks
export type { Task, Grade, Grader, Domain, HiddenTask } from './tasks/task';
export type { Niche, NicheSpec, TaskGenerator } from './tasks/niche';
export { taskStream, nicheSequence, type StreamOptions } from './tasks/stream';
export { loadBuiltinNicheSpecs, buildNiches, GraderSet } from './tasks/niche-registry';
export { createGrader, createMathGrader, createQaGrader, createCodeGrader, BUILTIN_GRADERS, type GraderDescriptor } from './tasks/graders';
export { BUILTIN_GENERATORS, registerGenerator } from './tasks/generators';
export { BUILTIN_DOMAINS, registerDomain, getDomain, domainNames, type DomainDescriptor, type ReplyFormat, type RunGraderSettings } from './tasks/domains';
export { registerNicheSpec } from './tasks/niche-registry';
export type { GeneratorDescriptor } from './tasks/generators/generator';
export { DATASET_FORMATS, type DatasetFormat, type DatasetFilter, type DatasetRows, type DatasetLoader } from './tasks/datasets/dataset-rows';
export { DATASET_SPECS, type DatasetFormatSpec } from './tasks/datasets/formats';

// Runs on disk
export { RunStore, RUN_SCHEMA_VERSION, type RunFile } from './store/run-store';
export { EventLog, LogDivergenceError, CONTROL_EVENTS } from './store/event-log';
export { RunLock, RunLockedError, readRunLock, lockLiveness, type RunLockInfo } from './store/run-lock';
export { runState, type RunState, type RunStatus } from './store/run-store';
export { JournaledModel, JournalMissError, requestKey, JOURNAL_FILE, type MissingCall } from './llm/request-journal';
export { SamplingModel, resolveSampling, requestSeed, samplingStageOf, type SamplingConfig } from './llm/sampling';
export { SAMPLING_STAGES, samplingSchema, type Sampling, type SamplingStage } from './llm/sampling-fields';

// Team level: LeadLearn and structure choice
export { LeadershipBank, leadershipKey, STRUCTURE_NAMES, type LeadershipEntry, type StructureName } from './team/leadlearn/leadership-bank';
export { CHOOSERS, minimumPool } from './engine/scenario/presets';
export type { StructureChooser, Choice, ChoiceContext, ChooserDescriptor } from './team/choosers/chooser';
export { BUILTIN_CHOOSERS } from './team/choosers';
export { styleOverlap } from './team/style-overlap';
export { synergyOf, SynergyTable, type SynergyChange, type SynergyReader } from './population/synergy';

// Population level: CoDream, lifecycle, specialization
export { runCoDream, dreamTrigger, type Insight, type DreamResult, type DreamTrigger } from './population/codream/codream';
export { routeInsights, type Delivery, type RoutingMode } from './population/codream/routing';
export { planLifecycle, LIFECYCLE_ORDER, LIFECYCLE_OPERATORS, type PlanOptions } from './population/lifecycle/plan';
export { LIFECYCLE_OPERATOR_LIST, emptyLineage, type LifecycleOperatorName } from './population/lifecycle';
export { lifecycleConfigSchema, DEFAULT_LIFECYCLE, type LifecycleConfig } from './population/lifecycle/lifecycle-config';
export type { LifecycleContext, LifecycleOperator, LifecycleOperatorDescriptor, ApplyContext, LifecycleSettings } from './population/lifecycle/operator';
export type { LifecycleDecision } from './population/lifecycle';
export { specialists, specialistOf, anchorOf, median, StabilityTracker } from './population/specialization';
// Population level: staleness policies for evolve outputs applied after the pool moved on
export { STALENESS_POLICIES, STALENESS_POLICY_NAMES, getStalenessPolicy } from './population/staleness';
export {
  DEFAULT_STALENESS_TAU, versionGap, type StalenessPolicy, type StalenessDecision, type StalenessContext, type StaleItem,
  type AppliedSinceEntry, type AppliedEntry, type RosterChange,
} from './population/staleness/policy';
export { AppliedHistory, collectSince, receiverChain } from './population/staleness/applied-history';
export { stalenessEvent } from './population/staleness/staleness-events';
export { parseStaleVerdict, type StaleVerdict } from './population/staleness/staleness-parse';
export { buildStalePrompt } from './population/staleness/staleness-prompt';

// Ablations and reports
export { planSweep, type PlanOptions as SweepPlanOptions, type SweepPlan, type PlannedRun, type PlannedCost } from './engine/sweep/plan';
export { BudgetMeter, type BudgetStop, type BudgetSpent } from './engine/loop/budget';
export { budgetSchema, type Budget } from './engine/scenario/budget-schema';
export { costOf, parsePriceFlag, pricesSchema, type ModelPrice, type Prices } from './llm/pricing';
export { usdOf } from './llm/token-accounting';
export { createSharedBackend, type SharedBackend } from './engine/sweep/shared-backend';
export { runLocalSweep, type LocalSweepOptions, type LocalSweepResult, type SweepJob } from './engine/sweep/sweep-local';
export { RunProcesses, serveRunJobs, type ProcessJob } from './engine/run/run-processes';
export { RunWindow, type RunWindowChange } from './engine/sweep/sweep-window';
export { ABLATION_PLAN_FILE, formatAblationTable, DEFAULT_ABLATION_VARIANTS, type AblationResult, type AblationOptions, type VariantResult, type Stat } from './engine/sweep/ablate';
export { planAblation, aggregateAblation, writeAblation, type AblationPlan, type FailedRun } from './engine/sweep/ablate';
// Ablation sweeps across machines (BullMQ on Redis)
export { runQueuedAblation, attachSweep, SweepDetached, type QueuedAblationOptions, type SweepStatus, type SweepWatch, type RunPlace } from './engine/sweep/sweep-coordinator';
export { startSweepWorker, type SweepWorker, type SweepWorkerOptions, type ResumeRun } from './engine/sweep/sweep-worker';
export { probeRedis } from './engine/sweep/redis-connection';
export { parseRedisTarget, RedisUnreachableError, type RedisTarget } from './engine/sweep/redis-target';
export { redactRedisUrl, SWEEP_QUEUE } from './engine/sweep/queue-names';
export { writeReport, buildReportData, readEventLog, reportDataSchema, isAblationDir, exportTables, EXPORT_TABLES, EXPORT_FORMATS, type ReportData, type ExportResult, type ExportFormat } from './report';
