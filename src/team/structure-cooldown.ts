/**
 * Failures that repeat. A task whose member call was refused for a cause that retrying cannot cure
 * (HTTP 400 for a context length or an invalid request, 404, 413, 422) fails and is never graded, so
 * LeadLearn never hears of it and may keep choosing the structure that provokes it (debate's long
 * prompts on a short context: 19 of 22 tasks failed, about 70 s each). When the same stage fails
 * for the same such cause on `after` consecutive tasks of one niche that used one structure, that
 * structure is set aside on that niche for the next `tasks` tasks of the stream. It is never scored
 * as a wrong answer: the tasks stay failed, and nothing is learnt from them.
 */

/** HTTP statuses that say the request itself is refused: the same request refails. */
export const NON_TRANSIENT_STATUS: ReadonlySet<number> = new Set([400, 404, 413, 422]);

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
  /** `solve HTTP 400`: the stage and the status. */
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
  /** `stage HTTP status` when the task failed for a non-transient cause; null otherwise (success, or a transient failure). */
  readonly cause: string | null;
}

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

/** The non-transient cause of a failed attempt list, e.g. `solve HTTP 400`; null when none was. */
export function nonTransientCause(stage: string, attempts: ReadonlyArray<{ readonly status?: number }>): string | null {
  const hit = attempts.find((a) => a.status !== undefined && NON_TRANSIENT_STATUS.has(a.status));
  return hit ? `${stage} HTTP ${hit.status}` : null;
}
