import { z } from 'zod';

const int = () => z.number().int();

/**
 * The scenario's `meta` section (docs/meta.md). Segments are `every` tasks long unless the
 * meta-editor's run plan sets the next one's length within [minTasks, maxTasks]; the run is
 * quiescent at each boundary (no task or evolve stage in flight).
 */
export const metaConfigSchema = z.strictObject({
  /** Tasks per segment, and the first segment's length. */
  every: int().min(10).default(100),
  /** Shortest and longest segment a run plan may ask for. */
  minTasks: int().min(10).default(40),
  maxTasks: int().min(10).default(400),
  /** The most characters of a meta-editor reply that are read; a longer reply is rejected whole. */
  maxReplyChars: int().min(1000).default(16_000),
  /** Earlier edits (with their outcomes) the meta-editor is shown. */
  history: int().min(0).max(32).default(6),
}).refine((m) => m.minTasks <= m.maxTasks, { message: 'meta.minTasks must not exceed meta.maxTasks', path: ['maxTasks'] });

/** Validated meta settings. */
export type MetaConfig = z.infer<typeof metaConfigSchema>;

/** Every meta setting at its default (the `meta` preset without a `meta` section). */
export const DEFAULT_META: MetaConfig = metaConfigSchema.parse({});
