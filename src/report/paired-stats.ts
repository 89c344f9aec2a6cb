import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { pairedComparison, type PairedStats, type TaskRewards } from '../core/stats/paired-comparison';
import type { RunTrace } from './collect/run-trace-collector';
import { readRunTrace } from './ablation-runs';

/** `paired` of ablation.json and of a comparison's data.json (core/stats/paired-comparison.ts computes it). */
export const pairedStatsSchema = z.object({
  reference: z.string(), level: z.number(), resamples: z.number(), permutations: z.number(), seed: z.number(),
  rows: z.array(z.object({
    variant: z.string(), test: z.enum(['paired', 'unpaired', 'none']), tasks: z.number(), referenceTasks: z.number().optional(),
    seeds: z.array(z.number()), difference: z.number().nullable(), lo: z.number().nullable(), hi: z.number().nullable(),
    p: z.number().nullable(), pHolm: z.number().nullable(),
  })),
});

/** The variant compared against when none is named: the full system when it ran, else the first. */
export function defaultReference(names: readonly string[]): string | undefined {
  return names.includes('evochamber') ? 'evochamber' : names[0];
}

/** A run's trace as the paired comparison reads it (null: its log was not readable, so it is left out). */
export function taskRewards(seed: number, trace: RunTrace | null): TaskRewards | null {
  return trace && trace.graded > 0 ? { seed, taskIds: trace.taskIds, rewards: trace.rewards } : null;
}

/** The paired comparison of variants whose runs' traces are read; null with fewer than two variants. */
export function pairedFromTraces(
  variants: readonly { readonly name: string; readonly runs: readonly { readonly seed: number; readonly trace: RunTrace | null }[] }[],
  reference: string | undefined, seed: number,
): PairedStats | null {
  const ref = reference ?? defaultReference(variants.map((v) => v.name));
  if (variants.length < 2 || ref === undefined) return null;
  return pairedComparison(variants.map((v) => ({ name: v.name, runs: v.runs.map((r) => taskRewards(r.seed, r.trace)).filter((r): r is TaskRewards => r !== null) })), ref, seed);
}

type AblationFile = { variants: Record<string, { runs: string[]; perSeed?: { seed: number }[] }>; seedList?: number[]; paired?: unknown };

/**
 * The paired comparison of an ablation's variants (reading each run's log for its per-task rewards);
 * null with fewer than two variants. Deterministic under the ablation's first seed. Throws when
 * `reference` is not one of its variants, or no run's log is on this machine.
 */
export async function pairedOfAblation(dir: string, reference?: string): Promise<PairedStats | null> {
  return (await computePaired(dir, reference)).paired;
}

/** `pairedOfAblation`, written into the ablation's `ablation.json` as `paired` (what `ablate` does at its end). */
export async function addPairedStats(dir: string, reference?: string): Promise<PairedStats | null> {
  const { paired, raw, file } = await computePaired(dir, reference);
  if (!paired) return null;
  writeFileSync(file, `${JSON.stringify({ ...raw, paired }, null, 2)}\n`);
  return paired;
}

async function computePaired(dir: string, reference?: string): Promise<{ paired: PairedStats | null; raw: AblationFile; file: string }> {
  const file = path.join(dir, 'ablation.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as AblationFile;
  const variants = await Promise.all(Object.entries(raw.variants).map(async ([name, v]) => ({
    name, runs: await Promise.all(v.runs.map(async (dir, i) => ({ seed: v.perSeed?.[i]?.seed ?? i, trace: (await readRunTrace(dir)).trace }))),
  })));
  if (variants.every((v) => v.runs.every((r) => r.trace === null))) throw new Error(`${dir}: no run's event log is on this machine (a queued sweep's runs stay on the workers' disks)`);
  return { paired: pairedFromTraces(variants, reference, raw.seedList?.[0] ?? 0), raw, file };
}
