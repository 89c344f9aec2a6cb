/**
 * The simulator's view of a task and its niche: only the fields it reads. It declares them itself
 * (llm/ sits beside tasks/, not above it); tasks/'s `Task` and `NicheSpec` satisfy them
 * structurally, so the engine registers its own objects unchanged, and serve-sim receives them
 * whole over the wire.
 */

/** The answer formats the simulator writes replies in. */
/** The answer formats the simulator writes replies in: a domain's name (its reply format is the domain descriptor's, src/tasks/domains/). */
export type SimDomain = string;

/** A task as the simulator sees it: the world may read the gold answer, as graders do. */
export interface SimTask {
  readonly id: string;
  readonly niche: string;
  readonly domain: SimDomain;
  /** 1 (easy) .. 5 (hardest). */
  readonly difficulty: number;
  /** The problem statement as the agents see it (a world with `taskFamilies` reads its problem type there). */
  readonly question?: string;
  /** The gold (an answer, or a reference solution) and plausible wrong answers; never shown to agents. */
  readonly hidden: { readonly answer: string; readonly distractors: readonly string[] };
}

/** A niche as the simulator sees it. */
export interface SimNiche {
  readonly id: string;
  readonly title: string;
  /** Words a persona aimed at this niche would mention. */
  readonly keywords: readonly string[];
}

/** What the simulator may know about a task beyond the prompt: the task itself and its niche. */
export interface SideChannelEntry {
  readonly task: SimTask;
  readonly spec: SimNiche;
}

/**
 * The simulated model's side channel: the tasks in flight, gold answers included, so the simulator
 * can answer right or wrong. It is the engine's task observer for simulated runs (the engine tells
 * it when a task starts and ends, as it tells any backend); graders and the framework never read it.
 */
export class SimSideChannel {
  private readonly tasks = new Map<string, SideChannelEntry>();

  /** Make a task known to the simulator while it is in flight (the engine's task observer). */
  taskStarted(task: SimTask, spec: SimNiche): void {
    this.tasks.set(task.id, { task, spec });
  }

  /** Forget a finished task (the engine's task observer). */
  taskEnded(taskId: string): void {
    this.tasks.delete(taskId);
  }

  /** The task behind a request, if registered. */
  get(taskId: string | undefined): SideChannelEntry | undefined {
    return taskId === undefined ? undefined : this.tasks.get(taskId);
  }
}
