import type { Rng } from '../../core/rng';
import { choosableStructures } from '../structures';
import type { ChooserDescriptor, StructureChooser } from './chooser';

/** A Gamma(shape, 1) draw (Marsaglia–Tsang; shape < 1 boosted by U^(1/shape)). */
function sampleGamma(rng: Rng, shape: number): number {
  if (shape < 1) return sampleGamma(rng, shape + 1) * Math.max(rng.next(), 1e-12) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = rng.normal();
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = Math.max(rng.next(), 1e-12);
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A Beta(a, b) draw from two Gamma draws. */
export function sampleBeta(rng: Rng, a: number, b: number): number {
  const x = sampleGamma(rng, a);
  return x / (x + sampleGamma(rng, b));
}

/**
 * Thompson sampling over the leadership bank's per-niche outcomes, with no model call. Each
 * offered structure's mean team reward on this niche has a Beta posterior from a uniform prior —
 * Beta(1 + Σ reward, 1 + Σ (1 − reward)) over its records as of the task's start version (rewards
 * in [0, 1] count as fractional successes) — and the structure with the highest draw leads. An
 * untried structure draws from Beta(1, 1), so it is tried; one that failed a few times still wins a
 * draw now and then, so early bad luck (binary rewards, teams that had learnt nothing yet) never
 * locks it out, while the draws concentrate on the best structure as its records grow. Only this
 * niche's records count: structures rank differently by niche, so no cross-niche prior is used.
 * Draws come from the task's `rng`, so a seed gives the same choices.
 */
export const banditChooser: StructureChooser = async (ctx) => {
  const names = (ctx.structures ?? choosableStructures()).map((d) => d.name);
  const stats = ctx.bank.stats.forNiche(ctx.task.niche, names, ctx.poolVersion);
  let best = { structure: ctx.fallback, draw: -1, count: 0, mean: 0 };
  for (const s of stats) {
    const wins = s.count * s.mean;
    const draw = sampleBeta(ctx.rng, 1 + wins, 1 + s.count - wins);
    if (draw > best.draw) best = { structure: s.structure, draw, count: s.count, mean: s.mean };
  }
  const why = best.count
    ? `Thompson draw ${best.draw.toFixed(2)} from Beta posterior of ${best.count} tasks at mean ${best.mean.toFixed(2)} on this niche`
    : `Thompson draw ${best.draw.toFixed(2)}: untried on this niche`;
  return { structure: best.structure, source: 'bandit', retrieved: [], why };
};

/** The `bandit` chooser: Thompson sampling over the bank's per-niche outcomes; it appends records to the bank but writes no notes. */
export const bandit: ChooserDescriptor = { name: 'bandit', choose: banditChooser, writesNotes: false, keepsRecords: true };
