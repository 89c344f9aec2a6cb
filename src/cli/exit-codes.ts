/**
 * The one exit-code scheme of every command (documented in docs/running.md, "Exit codes"):
 * - 0 `ok`: the command finished and every task was graded;
 * - 1 `error`: bad input, an unreachable server, a failed run (one clear line on stderr);
 * - 2 `usage`: bad command line;
 * - 3 `tasksFailed`: the run finished, but some tasks failed for infrastructure reasons
 *   (model calls out of retries, grader or sandbox errors); they are recorded as failed, not wrong;
 * - 4 `interrupted`: the run was stopped (signal, endpoint outage) and can be resumed.
 * `calibrate`: 0 the world is written; 1 bad input (targets, world, a target nothing fitted moves);
 * 4 interrupted (the same command continues from its journal).
 */
export const EXIT = { ok: 0, error: 1, usage: 2, tasksFailed: 3, interrupted: 4 } as const;

/** One of the exit codes above. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
