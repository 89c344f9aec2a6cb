import { z } from 'zod';
import { DATASET_FORMATS } from './datasets/dataset-rows';

const int = () => z.number().int();

/** One niche in a stream: a built-in id, or a dataset file in a standard format. */
export const nicheEntrySchema = z.strictObject({
  id: z.string().min(1),
  weight: z.number().positive().default(1),
  /** Difficulty levels to draw from (uniformly); the niche's own levels when omitted. */
  difficulty: z.array(int().min(1).max(5)).min(1).optional(),
  /** A dataset niche: rows loaded from a file the user has (path relative to the scenario file). */
  dataset: z.strictObject({
    format: z.enum(DATASET_FORMATS),
    path: z.string().min(1),
    /** Keep only rows with this metadata (MATH `levels` / `types`, AIME `years`). */
    filter: z.strictObject({
      levels: z.array(int().min(1).max(5)).min(1).optional(),
      years: z.array(int().min(1983).max(2100)).min(1).optional(),
      types: z.array(z.string().min(1)).min(1).optional(),
    }).optional(),
  }).optional(),
});

/** One validated stream niche entry. */
export type NicheEntry = z.infer<typeof nicheEntrySchema>;
