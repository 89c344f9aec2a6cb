import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';

/** What the simulator may know about a task beyond the prompt: the task itself and its niche. */
export interface SideChannelEntry {
  readonly task: Task;
  readonly spec: NicheSpec;
}

/**
 * The simulated model's side channel. The engine registers each task while it runs so the
 * simulator can answer right or wrong; graders and the framework never read it.
 */
export class SimSideChannel {
  private readonly tasks = new Map<string, SideChannelEntry>();

  /** Make a task known to the simulator while it is in flight. */
  register(task: Task, spec: NicheSpec): void {
    this.tasks.set(task.id, { task, spec });
  }

  /** Forget a finished task. */
  unregister(taskId: string): void {
    this.tasks.delete(taskId);
  }

  /** The task behind a request, if registered. */
  get(taskId: string | undefined): SideChannelEntry | undefined {
    return taskId === undefined ? undefined : this.tasks.get(taskId);
  }
}
