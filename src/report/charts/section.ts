import type { TopLevelSpec } from 'vega-lite';
import type { Chart } from './render-chart';

/** A table in a report section; cells are plain text (escaped when rendered). */
export interface Table {
  readonly caption: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
}

/**
 * One section of a report page: charts, tables and plain notes. A section with nothing to draw
 * says so in `notes` and has no charts, never an empty chart.
 */
export interface Section {
  /** Anchor id; the tests look sections up by it. */
  readonly id: string;
  readonly heading: string;
  /** Plain text under the heading. */
  readonly intro?: string;
  readonly charts: Chart[];
  readonly tables: Table[];
  readonly notes: string[];
  /** Preformatted blocks (commands, config), shown as code. */
  readonly code?: { readonly label: string; readonly text: string; readonly collapsed?: boolean }[];
  /** Headline figures shown as cards. */
  figures?: { readonly label: string; readonly value: string }[];
}

/** Vega-Lite specs are built as plain objects; this is the one place they are typed as such. */
export function vl(spec: Record<string, unknown>): TopLevelSpec {
  return spec as unknown as TopLevelSpec;
}

/**
 * What a title says of a run still going: " so far (after N tasks)", or nothing once it has
 * finished. A chart drawn live, or a report of an unfinished run, never claims to show the end.
 */
export function soFar(run: { readonly finished: boolean; readonly tasksDone: number }): string {
  return run.finished ? '' : ` so far (after ${run.tasksDone} tasks)`;
}

/** Format a 0–1 value with three decimals, or a dash. */
export function fmt3(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : x.toFixed(3);
}

/** 12345 → "12.3k"; small numbers as they are. */
export function fmtCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

/**
 * Axis labels of a count in SI units to the precision its ticks need ("250k", "1.5M"), and zero as
 * "0" (Vega's "~s" alone writes "0k" or "0M").
 */
export const SI_AXIS = { labelExpr: "datum.value === 0 ? '0' : format(datum.value, '~s')" } as const;
