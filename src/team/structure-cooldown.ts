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
 * While a structure is set aside for a status, on any niche, the calls it still makes (on niches
 * where it is not set aside yet, or a task already running) carry that status as a known refusal
 * (`refusals`): the first attempt still goes out, but the same refusal fails the call at once,
 * with no retry and no mark against the endpoint's health (docs/backends.md, "Refusals that repeat").
 */

/** HTTP statuses that say the request itself is refused: the same request refails. */
export const NON_TRANSIENT_STATUS: ReadonlySet<number> = new Set([400, 404, 413, 422]);

/** A status a call failed on that may set its structure aside: a non-transient one, or a 5xx its retries ran out on. */
const isRefusal = (status: number) => NON_TRANSIENT_STATUS.has(status) || (status >= 500 && status <= 599);

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
}

const NO_REFUSALS: readonly number[] = Object.freeze([]);

/** The set-aside state of a run, fed in commit order (so resume and every backend see the same). */
export class StructureCooldown {
  private readonly streaks = new Map<string, { cause: string; count: number }>();
  private readonly aside = new Map<string, SetAside>();

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
    const key = `${o.niche}\u0000${o.structure}`;
    if (o.cause === null) {
      this.streaks.delete(key);
      return null;
    }
    const prev = this.streaks.get(key);
    const count = prev && prev.cause === o.cause ? prev.count + 1 : 1;
    this.streaks.set(key, { cause: o.cause, count });
    if (count < this.settings.after) return null;
    this.streaks.delete(key);
    const s: SetAside = { niche: o.niche, structure: o.structure, cause: o.cause, task: o.index, untilTask: o.index + 1 + this.settings.tasks };
    this.aside.set(key, s);
    return s;
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
