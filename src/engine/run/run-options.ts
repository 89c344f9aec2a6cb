import type { Clock } from '../../core/clock';
import type { LanguageModel } from '../../llm/model';
import type { BudgetStop } from '../loop/budget';
import type { ScenarioPatch } from '../../core/scenario-patch';
import type { Progress } from '../loop/engine';
import type { BackendModel, ModelPlugin } from '../scenario/model-plugins';
import type { Scenario } from '../scenario/scenario-schema';
import type { RunSummary } from '../loop/summary';
import type { StructureDescriptor } from '../../team/structures/structure';

/** How a run is stopped from outside (signals): a stop request, then a grace period, then a cut. */
export interface StopOptions {
  /** Aborted: start no more tasks; those in flight finish (or are cut after `graceMs`). */
  readonly stop?: AbortSignal;
  /** How long in-flight tasks may take to finish after a stop (default 60 000 ms). */
  readonly graceMs?: number;
  /**
   * Receives, once the run directory is written, a synchronous function that marks the run
   * interrupted on disk at once (a second Ctrl-C: the caller exits right after; the run stays resumable).
   */
  readonly onAbandonable?: (abandon: () => void) => void;
}

/** Extensions a run uses beside the built-in ones (library callers and tests). */
export interface ExtensionOptions {
  /**
   * Collaboration structures added to the built-in ones for this run: choosable ones are offered
   * to the leader, and any may be a preset's fixed structure. A resume must pass the same ones.
   */
  readonly structures?: readonly StructureDescriptor[];
  /**
   * Model plug-ins for this run beside the registered ones (`registerModelPlugin`; the package
   * entry and the CLI register the simulated model). A resume must pass the same ones.
   */
  readonly plugins?: readonly ModelPlugin[];
  /**
   * The backend shared with the other runs of a sweep in this process (one pool, one virtual server);
   * the run takes its own view of it instead of building a backend. Set by `ablate`.
   */
  readonly shared?: { readonly backend: RunBackendSource; readonly key: string };
}

/**
 * Where a run takes its backend when it shares one with other runs (a sweep's `SharedBackend`):
 * one view per run, `key` setting its requests' order among the others' in virtual time.
 */
export interface RunBackendSource {
  /** The backend one run uses. */
  forRun(scenario: Scenario, key: string): BackendModel;
}

/**
 * Work done once a run has finished and its files are closed (never after an interrupted or failed
 * run); a path it returns is recorded as the summary's `reportPath`. The engine knows nothing of
 * reports, which sit above it: the package entry and the CLI pass the report writer here.
 */
export type AfterRun = (runDir: string, clock: Clock) => Promise<string | undefined>;

/** How a run is made from a scenario, as the CLI and scripts give it. */
export interface RunOptions extends StopOptions, ExtensionOptions {
  /**
   * What this run changes in the scenario, keyed by path (`{ seed: 2, "stream.tasks": 60,
   * "engine.inFlight": 4 }`): applied once, validated by the scenario schema, and written to
   * run.json as the run's `patch` (its reproduce command).
   */
  readonly patch?: ScenarioPatch;
  /** The run directory itself (default `runs/<scenario>-<variant>-s<seed>-<id>`). It must not hold a run already. */
  readonly outDir?: string;
  /** Replace a run already in `outDir` (default: refuse, suggesting `resume`). */
  readonly force?: boolean;
  /**
   * Keep the request journal (`journal.jsonl`). Default: on for HTTP backends, where calls cost and
   * a resume must not pay for them twice; off for the in-process simulator, whose calls are free
   * and which a resume simply re-computes (turn it on to `--replay` a simulated run).
   */
  readonly journal?: boolean;
  /**
   * Write only these event types to `events.jsonl` (run events always); default every one. For
   * runs read by a program that needs a few types (a calibration's evaluations, `plan`'s pilots):
   * the run and its summary are the same, the log is smaller and cheaper, and it cannot be resumed.
   */
  readonly logEvents?: readonly string[];
  /** Re-run from this run directory's request journal, offline; a call it lacks fails the run, naming it. */
  readonly replayFrom?: string;
  /** A model to use instead of the scenario's backend (tests, custom backends). */
  readonly model?: LanguageModel;
  readonly onProgress?: (p: Progress) => void;
  /** One-line notices about the run as it starts (a dataset niche whose rows will repeat); the CLI prints them. */
  readonly onNotice?: (line: string) => void;
  /** Called once run.json is written, with the run directory (`run --watch` points its server there before the first task). */
  readonly onRunDir?: (runDir: string) => void;
  readonly clock?: Clock;
  /** Run once the run finishes (the package entry's `runScenario` writes the HTML report here). */
  readonly afterRun?: AfterRun;
}

/** Options of `resumeRun`: what may change between the interrupted process and the resuming one. */
export interface ResumeOptions extends StopOptions, ExtensionOptions {
  /** A model to use instead of the scenario's backend (must answer as the original did). */
  readonly model?: LanguageModel;
  /**
   * A patch for the rest of the run: a new budget (`budget.*`: a run stopped by its budget goes on
   * with a larger one) or the simulator's world (`sim.world`, `resume --world`: the events already
   * written are re-checked, so a world that changes them fails that check); merged into the run's
   * patch and config in run.json. Any other path is refused.
   */
  readonly patch?: ScenarioPatch;
  readonly onProgress?: (p: Progress) => void;
  /** As `RunOptions.onNotice`. */
  readonly onNotice?: (line: string) => void;
  readonly clock?: Clock;
  readonly afterRun?: AfterRun;
}

/** What a run returns: its summary (of the committed tasks, when interrupted) and where it lives. */
export interface RunResult {
  readonly summary: RunSummary;
  readonly runDir: string;
  /** True when the run stopped early (signal, outage, budget); `evochamber resume <runDir>` continues it. */
  readonly interrupted?: boolean;
  /** Set when the run's budget stopped it: the limit it hit (`resume` with a larger budget continues it). */
  readonly budget?: BudgetStop;
  /**
   * Tasks the run's log holds committed: more than `summary.tasks` when a resume was stopped while it
   * still re-executed the logged part (nothing is lost: the next resume replays them all again).
   */
  readonly committed?: number;
}

