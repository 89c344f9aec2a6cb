import { z } from 'zod';

const int = () => z.number().int();

/**
 * Settings of the adaptive concurrency controller (`engine.auto`, read when `engine.inFlight` is
 * `"auto"`). Every field has a default (`autoConfigSchema.parse({})` is `DEFAULT_AUTO`); the rule
 * that uses them is in `adaptive.ts` and in docs/concurrency.md, "Adaptive concurrency".
 */
export const autoConfigSchema = z
  .strictObject({
    /** Solve window (tasks in flight) the run starts with. */
    initial: int().min(1).max(1024).default(4),
    /** Smallest solve window the controller may set. */
    min: int().min(1).max(1024).default(1),
    /** Largest solve window the controller may set. */
    max: int().min(1).max(1024).default(64),
    /** Evolve workers (reflection, leadership note, CoDream jobs at once) the run starts with. */
    evolveInitial: int().min(1).max(1024).default(4),
    /** Fewest evolve workers. */
    evolveMin: int().min(1).max(1024).default(1),
    /** Most evolve workers. */
    evolveMax: int().min(1).max(1024).default(32),
    /** Shortest control period, in run-clock seconds (virtual under `--latency`, wall over HTTP). */
    periodSeconds: z.number().positive().default(30),
    /** Solve items (commits) a period needs before it is judged; a quieter period is extended. */
    minItems: int().min(1).default(8),
    /** A probe grows the solve window by max(1, ceil(window × growStep)). */
    growStep: z.number().positive().max(4).default(0.25),
    /**
     * A probe is kept when solve throughput grew by at least this fraction of the window's relative
     * growth (1 = throughput scaled with the window; 0.5 = half as fast); otherwise it is undone.
     */
    minEfficiency: z.number().min(0).max(1).default(0.5),
    /** The solve window may grow only while the mean version gap is at most τ × gapHeadroom. */
    gapHeadroom: z.number().gt(0).max(1).default(0.75),
    /** Periods to hold the solve window after an undone probe or a staleness shrink, before probing again. */
    holdPeriods: int().min(0).default(6),
    /**
     * The mean version gap of applied evolve outcomes the window may cause (τ of the gap rules);
     * absent: `engine.staleness.tau`. The gap grows with the window (each task in flight commits,
     * and its evolve outcome is applied, before an older outcome lands), so this bounds the window.
     */
    maxGap: z.number().min(0).optional(),
  })
  .superRefine((c, ctx) => {
    // Named with the values, since `initial` may be a default the writer never saw.
    if (c.min > c.max) ctx.addIssue({ code: 'custom', path: ['max'], message: `max (${c.max}) is below min (${c.min})` });
    else if (c.initial < c.min || c.initial > c.max) {
      ctx.addIssue({ code: 'custom', path: ['initial'], message: `initial (${c.initial}) must lie within min..max (${c.min}..${c.max})` });
    }
    if (c.evolveMin > c.evolveMax) ctx.addIssue({ code: 'custom', path: ['evolveMax'], message: `evolveMax (${c.evolveMax}) is below evolveMin (${c.evolveMin})` });
    else if (c.evolveInitial < c.evolveMin || c.evolveInitial > c.evolveMax) {
      ctx.addIssue({
        code: 'custom', path: ['evolveInitial'],
        message: `evolveInitial (${c.evolveInitial}) must lie within evolveMin..evolveMax (${c.evolveMin}..${c.evolveMax})`,
      });
    }
  });

/** Validated controller settings. */
export type AutoConfig = z.infer<typeof autoConfigSchema>;
/** Controller settings as written in a scenario (every field optional). */
export type AutoConfigInput = z.input<typeof autoConfigSchema>;

/** Every controller setting at its default. */
export const DEFAULT_AUTO: AutoConfig = autoConfigSchema.parse({});

/** The controller settings a scenario's `engine` block asks for (`engine.auto`, or every default). */
export function autoConfigOf(engine: { readonly auto?: AutoConfig | undefined }): AutoConfig {
  return engine.auto ?? DEFAULT_AUTO;
}

/** τ of the controller's gap rules: `engine.auto.maxGap`, else the staleness policy's τ. */
export function autoGapBound(engine: { readonly auto?: AutoConfig | undefined; readonly staleness: { readonly tau: number } }): number {
  return engine.auto?.maxGap ?? engine.staleness.tau;
}
