/** Agent colours, in spawn order (Tableau 20 reordered so the first ten are the strong hues). */
const AGENT_PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
] as const;

/**
 * Variant colours, in the ablation's order: 24 colours chosen greedily for the largest smallest
 * CIELAB distance (ΔE76) to those before them, from Tableau 20, Kelly's 22, Okabe–Ito, Tol and
 * ColorBrewer's qualitative sets, keeping lightness 25–78 (visible on white). The first four are the
 * report's familiar blue, orange, red and green. Smallest pairwise ΔE76: 38.7 among the first 10,
 * 30.4 among 15, 26.5 among 20, 24.8 among all 24 (a difference of about 10 is plain to see).
 */
export const VARIANT_PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b66dff', '#654522', '#bcbd22', '#e377c2', '#c2b280', '#17becf', '#006ddb', '#004949',
  '#882255', '#848482', '#920000', '#ff9da7', '#e7298a', '#604e97', '#924900', '#6db6ff', '#b07aa1', '#e25822', '#1b9e77', '#e6ab02',
] as const;

/** A fixed ordinal colour scale (domain and range), shared by every chart that colours by it. */
export interface ColorScale {
  readonly domain: string[];
  readonly range: string[];
}

/** One fixed colour per agent id, the same in every chart of a report. */
export function agentColors(agentIds: readonly string[]): ColorScale {
  return { domain: [...agentIds], range: agentIds.map((_, i) => AGENT_PALETTE[i % AGENT_PALETTE.length]!) };
}

/** The colour of one agent under a scale (grey for an agent not on it). */
export function colorOf(scale: ColorScale, agentId: string): string {
  const i = scale.domain.indexOf(agentId);
  return i < 0 ? '#999999' : scale.range[i]!;
}

/** The six team structures, in a fixed colour order so runs compare at a glance. */
export const STRUCTURE_COLORS: ColorScale = {
  domain: ['single', 'self-consistency', 'voting', 'debate', 'generator-critic', 'decompose'],
  range: ['#bab0ac', '#76b7b2', '#4e79a7', '#e15759', '#f28e2b', '#59a14f'],
};

/** CoDream insight levels, narrow to broad. */
export const LEVEL_ORDER = ['task-local', 'subdomain', 'cross-domain'] as const;

/**
 * Extend a fixed scale with values it does not know (a structure or operator added by a run's own
 * descriptor), keeping known ones first. Each extra gets a palette colour the scale does not use yet,
 * so two added structures stay apart; grey only once the palette is spent.
 */
export function withUnknowns(scale: ColorScale, values: Iterable<string>): ColorScale {
  const extra = [...new Set(values)].filter((v) => !scale.domain.includes(v));
  const spare = AGENT_PALETTE.filter((c) => !scale.range.includes(c));
  return { domain: [...scale.domain, ...extra], range: [...scale.range, ...extra.map((_, i) => spare[i] ?? '#999999')] };
}

/** Sequential colours for a 0–1 competence or accuracy value. */
export const COMPETENCE_SCHEME = 'viridis';
