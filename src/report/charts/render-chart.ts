import type * as Vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';

// Vega and Vega-Lite take about 0.6 s to load: loaded on the first chart, so importing the package
// (or writing no report) does not pay for them.
let renderer: Promise<[typeof Vega, typeof import('vega-lite')]> | null = null;
const loadRenderer = () => (renderer ??= Promise.all([import('vega'), import('vega-lite')]));

/** One chart of a report: a Vega-Lite spec plus the sentence that says what to look for. */
export interface Chart {
  /** Stable id, unique in the report (used for SVG ids and test hooks). */
  readonly id: string;
  readonly title: string;
  /** One sentence: what to look for. */
  readonly caption: string;
  /** The Vega-Lite spec without title or config (added here). */
  readonly spec: TopLevelSpec;
}

/** A chart rendered to inline SVG. */
export interface RenderedChart {
  readonly id: string;
  /** `<figure>` holding the SVG and its caption. */
  readonly html: string;
  /** Vega-Lite and Vega warnings while compiling and rendering (none expected). */
  readonly warnings: string[];
}

const CONFIG = {
  background: 'white',
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  title: { fontSize: 15, anchor: 'start', offset: 12 },
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 600 },
  legend: { labelFontSize: 11, titleFontSize: 12 },
  header: { labelFontSize: 12, titleFontSize: 12 },
  view: { stroke: '#ddd' },
} as const;

/**
 * Compile a Vega-Lite chart and render it headless to SVG (`renderer: 'none'`, no DOM, no network:
 * all data is inline). Mark descriptions become SVG `<title>` tooltips, and element ids are
 * prefixed with the chart id so many SVGs can share one page.
 */
export async function renderChart(chart: Chart): Promise<RenderedChart> {
  const [vega, { compile }] = await loadRenderer();
  const warnings: string[] = [];
  const logger = collectingLogger(vega, warnings);
  const spec = { ...chart.spec, title: { text: chart.title }, config: { ...CONFIG, ...(chart.spec as { config?: object }).config } } as TopLevelSpec;
  const compiled = compile(spec, { logger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger, logLevel: vega.Warn });
  const svg = postProcess(await view.toSVG(), chart.id);
  view.finalize();
  const html = `<figure class="chart" id="chart-${chart.id}" data-chart="${chart.id}">${svg}<figcaption>${escapeText(chart.caption)}</figcaption></figure>`;
  return { id: chart.id, html, warnings };
}

function postProcess(svg: string, id: string): string {
  return svg
    // Hover text without scripts: each mark's description as a <title> child.
    .replace(/<(path|rect|circle|line|text|image)\b([^>]*?)\baria-label="([^"]*)"([^>]*?)\/>/g, '<$1$2aria-label="$3"$4><title>$3</title></$1>')
    .replace(/\bid="([^"]+)"/g, `id="${id}-$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${id}-$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${id}-$1"`);
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function collectingLogger(vega: typeof Vega, into: string[]): Vega.LoggerInterface {
  let level = vega.Warn;
  const logger: Vega.LoggerInterface = {
    level(l?: number) {
      if (l === undefined) return level as never;
      level = l;
      return logger as never;
    },
    error(...args: readonly unknown[]) { into.push(`error: ${args.map(String).join(' ')}`); return logger; },
    warn(...args: readonly unknown[]) { into.push(args.map(String).join(' ')); return logger; },
    info() { return logger; },
    debug() { return logger; },
  } as Vega.LoggerInterface;
  return logger;
}
