// EvoChamber's public API: load a scenario, override parts of it, run it, compare results; and the
// descriptor types an extension (a structure, an assembler, a chooser, a lifecycle operator, a
// staleness policy, a generator, a domain, a grader, a model backend) is written against. What the
// README and docs/library.md use is here; everything else is internal and may change without notice
// (the repository's own tests and benches import it from its module).

import type { LoadedScenario } from './engine/scenario/scenario';
import * as engineRun from './engine/run/run-scenario';
import * as engineAblate from './engine/sweep/ablate';
import { withReport, type RunReportOption } from './report/report-after-run';
import { useBuiltinPlugins, withSweepDefaults } from './cli/composition';

// The package entry is where models are composed, as the CLI is: it plugs in the simulated model (the engine never names it).
useBuiltinPlugins();

/** Options of `runScenario`: the engine's, plus the HTML report written when the run finishes. */
export interface RunOptions extends engineRun.RunOptions {
  /** Write the run's report when it finishes (default: yes, into `<run-dir>/report/`); `false` skips it. */
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

// Scenarios
export { loadScenario, parseScenario, ScenarioError, bundledScenarios, resolveScenario, BUNDLED_SCENARIOS_DIR, type LoadedScenario, type DeepPartial } from './engine/scenario/scenario';
export type { Scenario, ScenarioInput, InFlight } from './engine/scenario/scenario-schema';
export { PRESETS, getPreset, type Preset } from './engine/scenario/presets';
export { applyScenarioPatch } from './engine/scenario/apply-patch';
export { mergePatches, scenarioPatch, type ScenarioPatch, type PatchPath } from './core/scenario-patch';
// The scenario's paths fill in PatchPath for a library's code too (its patches are checked by its compiler).
export type { KnobPath } from './engine/scenario/knob-path';

// Runs and their results
export { RunDirExistsError, type AfterRun, type StopOptions, type ExtensionOptions, type RunResult } from './engine/run/run-scenario';
export type { RunSummary, Speculative } from './engine/loop/summary';
export type { Progress } from './engine/loop/engine';
export { RunLockedError } from './store/run-lock';

// The event log: every event type (the catalogue), its one reader, its published JSON Schema
export {
  readRunEvents, readRunEventsSync, eventsJsonSchema, EVENT_CATALOGUE, EVENTS_VERSION,
  type RunEvent, type LoggedEvent, type EventType, type EventOf, type ReadStats,
} from './store/events';

// Ablations and reports
export { formatAblationTable, DEFAULT_ABLATION_VARIANTS, type AblationResult, type AblationOptions, type VariantResult, type Stat } from './engine/sweep/ablate';
export { writeReport, exportTables, EXPORT_TABLES, EXPORT_FORMATS, type ReportData, type ExportResult, type ExportFormat } from './report';

// Model backends: the interface, and plug-ins
export { CompletionAbortedError, isCompletionAborted, type LanguageModel, type CompletionRequest, type Completion, type ChatMessage, type Stage, type Usage } from './llm/model';
export { ModelRequestError } from './llm/openai/openai-pool-model';
export { registerModelPlugin, type ModelPlugin, type BackendModel, type VirtualLatency, type VirtualStats, type ScenarioIssue } from './engine/scenario/model-plugins';
export type { TaskObserver } from './engine/scenario/task-observer';
export { simPlugin } from './sim/sim-plugin';
export { DEFAULT_SIM_PARAMS, type SimParams } from './sim/sim-params';
export { loadWorldFile, WorldFileError, type WorldFile } from './sim/sim-world-file';
export { calibrate, type CalibrateOptions, type CalibrationResult } from './engine/sweep/calibrate/calibrate';
export { loadTargets, targetsFromRuns, TargetsError, type Target } from './engine/sweep/calibrate/targets';
export { predictAccuracy, type PredictedAccuracy } from './engine/sweep/calibrate/predict';
export { predictStreams, type PredictionFile } from './engine/sweep/calibrate/prediction';
export { loadPrediction, scoreAblation, type Scorecard } from './engine/sweep/calibrate/scorecard';

// Extensions: each is one descriptor; the built-in ones are listed beside their type.
export type { Knob } from './core/knob';
export { createRng, type Rng } from './core/rng';
export type { AgentView } from './individual/agent-view';
export type { Experience } from './individual/agent-prompts';
export type { Team, TeamMember, Role } from './team/team';
export { generate, type Attempt } from './team/operators/generate';
export { vote, majorityDecided, type VoteResult } from './team/operators/vote';
export { cancelledMembers, type EarlyStop, type MemberAnswer, type Structure, type StructureContext, type StructureResult, type StructureDescriptor } from './team/structures/structure';
export { BUILTIN_STRUCTURES, registerStructure } from './team/structures';
export type { Assembler, AssemblyContext, AssemblerDescriptor } from './team/assemblers/assembler';
export { BUILTIN_ASSEMBLERS, registerAssembler } from './team/assemblers';
export type { StructureChooser, Choice, ChoiceContext, ChooserDescriptor } from './team/choosers/chooser';
export { BUILTIN_CHOOSERS, registerChooser } from './team/choosers';
export type { LifecycleContext, LifecycleOperator, LifecycleOperatorDescriptor, ApplyContext, LifecycleSettings } from './population/lifecycle/operator';
export { LIFECYCLE_OPERATOR_LIST, registerLifecycleOperator, type LifecycleDecision } from './population/lifecycle';
export type { StalenessPolicy, StalenessDecision, StalenessContext, StaleItem, AppliedSinceEntry, AppliedEntry, RosterChange } from './population/staleness/policy';
export { STALENESS_POLICIES, registerStalenessPolicy } from './population/staleness';
export type { Task, Grade, Grader, Domain, HiddenTask } from './tasks/task';
export type { Niche, NicheSpec, TaskGenerator } from './tasks/niche';
export { registerNicheSpec } from './tasks/niche-registry';
export type { GeneratorDescriptor } from './tasks/generators/generator';
export { BUILTIN_GENERATORS, registerGenerator } from './tasks/generators';
export { BUILTIN_DOMAINS, registerDomain, type DomainDescriptor, type ReplyFormat, type RunGraderSettings } from './tasks/domains';
export { BUILTIN_GRADERS, type GraderDescriptor } from './tasks/graders';
