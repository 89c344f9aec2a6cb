/**
 * Where in a task's path an infrastructure failure happened. `solve` covers every structure's
 * member calls; `grade` the grader or its sandbox; the rest are the evolve stages.
 */
export type InfraStage = 'solve' | 'grade' | 'leadlearn' | 'reflect' | 'codream' | 'lifecycle' | 'other';

/**
 * An infrastructure failure: a model call that exhausted its retries, a reply still malformed
 * after retries, a sandbox or grader that could not produce a verdict. It is never an answer:
 * a task that meets one is recorded as `failed` (with stage and cause) and updates nothing.
 * Lives in `core/` because the model layer, the graders and the engine all raise or read it.
 */
export class InfrastructureError extends Error {
  override readonly name = 'InfrastructureError';
  constructor(
    readonly stage: InfraStage,
    /** One line, no secrets: what failed and why. */
    readonly causeText: string,
    options?: { cause?: unknown },
  ) {
    super(`${stage}: ${causeText}`, options);
  }
}

/** True for an InfrastructureError, also across module copies (checks the name, not the prototype). */
export function isInfrastructureError(err: unknown): err is InfrastructureError {
  return err instanceof InfrastructureError || (err instanceof Error && err.name === 'InfrastructureError' && 'stage' in err);
}
