import { z } from 'zod';

/** `sweep.priorities`: critical path first, or no priorities (a sweep in job order, the default). */
export type PriorityPolicy = 'critical-path' | 'off';

/** The priority policies `sweep.priorities` (`ablate --priorities`) takes. */
export const PRIORITY_POLICIES: readonly PriorityPolicy[] = ['critical-path', 'off'];

/**
 * The scenario's `sweep` section: how a local `ablate` runs its runs on this machine. Patch paths like
 * every other setting (`sweep.parallel`, …; `ablate --parallel` is one), so the plan file, the
 * reproduce command and the report read them from the one patch. A run ignores them: the sweep
 * strips `sweep.*` from each run's patch.
 */
export const sweepSettingsSchema = z.strictObject({
  /**
   * Runs at once in this process over one shared backend (virtual time, HTTP), or `auto`: found
   * from the server's measured throughput (sweep-window.ts). Default 1.
   */
  parallel: z.union([z.number().int().min(1), z.literal('auto')]).optional(),
  /** Worker processes for the zero-time simulator's runs (default: the composition's, the core count). */
  jobs: z.number().int().min(1).optional(),
  /**
   * Scheduling priorities over a shared server (sweep-schedule.ts): `critical-path` starts the runs
   * longest first and sends each run's requests with a priority; `off` (the default) does neither.
   */
  priorities: z.enum(PRIORITY_POLICIES as [PriorityPolicy, ...PriorityPolicy[]]).optional(),
  /**
   * Virtual hours the sweep must end in: each run gets the smallest in-flight window that lets it
   * (sweep-schedule.ts), and the result compares each variant with it alone at in-flight 1.
   */
  deadlineHours: z.number().positive().optional(),
});

/** A validated `sweep` section. */
export type SweepSettings = z.infer<typeof sweepSettingsSchema>;
