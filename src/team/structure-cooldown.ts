/**
 * Failures that repeat. A task whose member call was refused for a cause that retrying cannot cure
 * (HTTP 400 for a context length or an invalid request, 404, 413, 422), or whose retries all ran
 * out on a 5xx (a server that refuses one structure's prompts with 503), fails and is never graded, so
 * LeadLearn never hears of it and may keep choosing the structure that provokes it (debate's long
 * prompts on a short context: 19 of 22 tasks failed, about 70 s each). When the same stage fails
 * for the same such cause on `after` consecutive tasks of one niche that used one structure, that
 * structure is set aside on that niche for the next `tasks` tasks of the stream. It is never scored
 * as a wrong answer: the tasks stay failed, and nothing is learnt from them.
 *
 * A 4xx names the request, so it is evidence against the structure by itself. A 5xx is not: a
 * flaky server fails every structure's calls alike, and setting structures aside for it only
 * narrows the team's choices. So a 5xx streak sets a structure aside only when the calls that
 * failed (that structure's step, e.g. debate's `revise-1`) fail far more often than the endpoint's
 * other calls over the same window of committed tasks (`refusedFarAboveEndpoint`); otherwise the
 * failures are the endpoint's health, and nothing is set aside (docs/backends.md, "Refusals that repeat").
 *
 * While a structure is set aside for a status, on any niche, the calls it still makes (on niches
 * where it is not set aside yet, or a task already running) carry that status as a known refusal
 * (`refusals`): the first attempt still goes out, but the same refusal fails the call at once,
 * with no retry and no mark against the endpoint's health (docs/backends.md, "Refusals that repeat").
 */

/** HTTP statuses that say the request itself is refused: the same request refails. */
export const NON_TRANSIENT_STATUS: ReadonlySet<number> = new Set([400, 404, 413, 422]);

/** A status a call failed on that may set its structure aside: a non-transient one, or a 5xx its retries ran out on. */
const isRefusal = (status: number) => NON_TRANSIENT_STATUS.has(status) || isServerError(status);
const isServerError = (status: number) => status >= 500 && status <= 599;

/** Committed tasks whose calls make the window a 5xx's evidence is judged over. */
export const HEALTH_WINDOW_TASKS = 40;
/** Calls of the failing step the window must hold before a 5xx can set its structure aside. */
export const MIN_STEP_CALLS = 4;
/** How far (in failure rate) the failing step must stand above the endpoint's other calls. */
export const FAR_ABOVE = 0.5;

/** `team.cooldown` in a scenario. */
export interface CooldownSettings {
  /** Consecutive failing tasks (same niche, structure, stage and cause) that set the structure aside. */
  readonly after: number;
  /** For how many tasks of the stream it stays set aside (0: never set aside). */
  readonly tasks: number;
}

/** A structure set aside on a niche: from the task that set it aside to the task index it is offered again at. */
export interface SetAside {
  readonly niche: string;
  readonly structure: string;
  /** `solve HTTP 400`: the stage and the status (see `refusalCause`). */
  readonly cause: string;
  /** The stream index of the task whose failure set it aside. */
  readonly task: number;
  /** The first stream index at which it is offered again. */
  readonly untilTask: number;
}

/** One committed task as the cooldown sees it. */
export interface CooldownObservation {
  readonly niche: string;
  readonly index: number;
  /** The structure the task ran (none: it failed before a structure was chosen). */
  readonly structure: string | undefined;
  /** `stage HTTP status` when the task failed for a refusal (`refusalCause`); null otherwise (success, or another failure). */
  readonly cause: string | null;
  /** The task's member calls (its structure's attempts) and the status each failed on: the endpoint's health window. */
  readonly attempts?: ReadonlyArray<{ readonly step: string; readonly status?: number; readonly cancelled?: true }>;
}

/** One call in the health window: which structure's step made it, and whether it failed on a 5xx. */
interface WindowCall { readonly key: string; readonly failed5xx: boolean }

const NO_REFUSALS: readonly number[] = Object.freeze([]);

/** The set-aside state of a run, fed in commit order (so resume and every backend see the same). */
export class StructureCooldown {
  private readonly streaks = new Map<string, { cause: string; count: number }>();
  private readonly aside = new Map<string, SetAside>();
  /** The calls of the last HEALTH_WINDOW_TASKS committed tasks, one list per task, oldest first. */
  private readonly window: WindowCall[][] = [];

  constructor(private readonly settings: CooldownSettings) {}

  /** The structures set aside on `niche` for the task at stream index `index`. */
  blocked(niche: string, index: number): ReadonlySet<string> {
    const out = new Set<string>();
    for (const s of this.aside.values()) if (s.niche === niche && index < s.untilTask) out.add(s.structure);
    return out;
  }

  /**
   * The HTTP statuses `structure`'s calls are known to be refused with at stream index `index`: the
   * causes it is set aside for on any niche (a server that refuses a structure's prompts refuses them on every niche).
   */
  refusals(structure: string, index: number): readonly number[] {
    // Read at every model call of a structure: nothing set aside (every simulated run) allocates nothing.
    if (this.aside.size === 0) return NO_REFUSALS;
    const out = new Set<number>();
    for (const s of this.aside.values()) {
      if (s.structure !== structure || index >= s.untilTask) continue;
      const status = statusOf(s.cause);
      if (status !== null) out.add(status);
    }
    return [...out].sort((a, b) => a - b);
  }

  /** Fold one committed task in; returns the structure it sets aside, if it does. */
  observe(o: CooldownObservation): SetAside | null {
    if (o.structure === undefined || this.settings.tasks <= 0) return null;
    this.remember(o.structure, o.attempts ?? []);
    const key = `${o.niche}\u0000${o.structure}`;
    if (o.cause === null) {
      this.streaks.delete(key);
      return null;
    }
    const prev = this.streaks.get(key);
    const count = prev && prev.cause === o.cause ? prev.count + 1 : 1;
    this.streaks.set(key, { cause: o.cause, count });
    if (count < this.settings.after) return null;
    const status = statusOf(o.cause);
    // A 5xx streak is the endpoint's health unless the structure's failing step stands far above it.
    if (status !== null && isServerError(status) && !this.refusedFarAboveEndpoint(o.structure, o.attempts ?? [])) return null;
    this.streaks.delete(key);
    const s: SetAside = { niche: o.niche, structure: o.structure, cause: o.cause, task: o.index, untilTask: o.index + 1 + this.settings.tasks };
    this.aside.set(key, s);
    return s;
  }

  /** Add a task's calls to the health window (only the 5xx matter, so a run without one keeps nothing but keys). */
  private remember(structure: string, attempts: NonNullable<CooldownObservation['attempts']>): void {
    // A call cancelled because the answer was decided says nothing of the endpoint.
    this.window.push(attempts.filter((a) => !a.cancelled).map((a) => ({ key: `${structure}\u0000${a.step}`, failed5xx: a.status !== undefined && isServerError(a.status) })));
    if (this.window.length > HEALTH_WINDOW_TASKS) this.window.shift();
  }

  /**
   * True when some step of `structure` that failed with a 5xx in this task fails, over the window,
   * at least FAR_ABOVE more often than every other call the endpoint answered in the same window
   * (a server that refuses debate's revisions: 100 % against about 0 %; a server that fails 30 % of
   * all requests: about 30 % against 30 %).
   */
  private refusedFarAboveEndpoint(structure: string, attempts: NonNullable<CooldownObservation['attempts']>): boolean {
    const failingKeys = new Set(attempts.filter((a) => a.status !== undefined && isServerError(a.status)).map((a) => `${structure}\u0000${a.step}`));
    for (const key of failingKeys) {
      let stepCalls = 0; let stepFailed = 0; let restCalls = 0; let restFailed = 0;
      for (const task of this.window) {
        for (const c of task) {
          if (c.key === key) { stepCalls++; if (c.failed5xx) stepFailed++; } else { restCalls++; if (c.failed5xx) restFailed++; }
        }
      }
      if (stepCalls < MIN_STEP_CALLS) continue;
      const restRate = restCalls === 0 ? 1 : restFailed / restCalls;
      if (stepFailed / stepCalls >= restRate + FAR_ABOVE) return true;
    }
    return false;
  }
}

/**
 * The refusal behind a failed attempt list, e.g. `solve HTTP 400` or `solve HTTP 503`; null when
 * none was. An attempt's status is the one its call stopped on (a non-retryable status, or the
 * last one when its retries ran out), so a 5xx here is a 5xx every retry met.
 */
export function refusalCause(stage: string, attempts: ReadonlyArray<{ readonly status?: number }>): string | null {
  const hit = attempts.find((a) => a.status !== undefined && isRefusal(a.status));
  return hit ? `${stage} HTTP ${hit.status}` : null;
}

/** The status of a cause `refusalCause` wrote; null for any other text. */
function statusOf(cause: string): number | null {
  const m = /HTTP (\d{3})$/.exec(cause);
  return m ? Number(m[1]) : null;
}
