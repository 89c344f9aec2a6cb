import { viewRoster } from '../../individual/agent-view';
import type { Rng } from '../../core/rng';
import type { LanguageModel } from '../../llm/model';
import type { Supervisor } from '../../population/supervisor-ops';
import type { EventLog } from '../../store/event-log';
import type { Niche } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import type { StructureCooldown } from '../../team/structure-cooldown';
import type { StructureRegistry } from '../../team/structures';
import type { Preset } from '../scenario/presets';
import type { Scenario } from '../scenario/scenario-schema';
import type { TaskObserver } from '../scenario/task-observer';
import { taskStartedEvent } from './events-from-changes';
import { runTask, type TaskOutcome } from './task-run';

/** What starting a task needs. */
export interface TaskLauncherDeps {
  readonly model: LanguageModel;
  readonly preset: Preset;
  readonly niches: ReadonlyMap<string, Niche>;
  readonly tasks: Iterable<Task>;
  readonly supervisor: Supervisor;
  readonly log: EventLog;
  readonly rng: Rng;
  readonly structures?: StructureRegistry;
  readonly observer?: TaskObserver;
  /** LeadLearn's key of each niche, computed once. */
  readonly nicheKeys: ReadonlyMap<string, Float32Array>;
  readonly cooldown: StructureCooldown;
  /** Told of each start (the adaptive controller's solve clock). */
  readonly onStarted?: () => void;
}

/**
 * Starts the stream's tasks in stream order, each as a task run (`runTask`) on a snapshot of the pool,
 * and keeps their outcomes by index until the loop takes them (in the same order, to commit).
 */
export class TaskLauncher {
  /** Tasks started so far (the next task's index). */
  started = 0;
  /** The stream has no task left. */
  exhausted = false;
  private readonly running = new Map<number, Promise<TaskOutcome>>();
  private readonly it: Iterator<Task>;

  constructor(private readonly d: TaskLauncherDeps) {
    this.it = d.tasks[Symbol.iterator]();
  }

  /** Tasks started and not yet taken. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Start the next task of the stream under `scenario` (the procedure now); sets `exhausted` when there is none. */
  start(scenario: Scenario): void {
    const next = this.it.next();
    if (next.done) { this.exhausted = true; return; }
    const task = next.value;
    const niche = this.d.niches.get(task.niche)!;
    this.d.observer?.taskStarted(task, niche.spec);
    const sup = this.d.supervisor.getSnapshot().context;
    // Logged as the run starts: tasks start in stream order (task i once task i − inFlight has
    // committed), so the log stays the same on every run with the same seed.
    this.d.log.append(taskStartedEvent(task, sup.poolVersion));
    this.d.onStarted?.();
    this.running.set(this.started, runTask({
      model: this.d.model, preset: this.d.preset, scenario, niche, task,
      rng: this.d.rng.fork(`task/${task.index}`), roster: viewRoster(sup.active), poolVersion: sup.poolVersion,
      synergy: sup.synergy, bank: sup.bank, nicheKey: this.d.nicheKeys.get(task.niche)!, structures: this.d.structures,
      setAside: this.d.cooldown.blocked(task.niche, task.index),
      knownRefusals: (structure) => this.d.cooldown.refusals(structure, task.index),
    }));
    this.started++;
  }

  /** The outcome of task `index`, if it was started and not taken yet. */
  outcome(index: number): Promise<TaskOutcome> | undefined {
    return this.running.get(index);
  }

  /** Forget task `index` once its outcome is committed. */
  taken(index: number): void {
    this.running.delete(index);
  }
}
