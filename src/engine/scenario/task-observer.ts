import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';

/**
 * Told when each task starts and when it is done (its evolve stage applied, or dropped), whatever
 * the backend. A backend that must know the task behind its requests listens here: the simulated
 * model keeps its side channel this way. Never throws; it must not change the run.
 */
export interface TaskObserver {
  taskStarted(task: Task, niche: NicheSpec): void;
  taskEnded(taskId: string): void;
}
