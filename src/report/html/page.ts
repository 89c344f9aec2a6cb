import { renderChart } from '../charts/render-chart';
import type { ColorScale } from '../charts/palette';
import type { Section, Table } from '../charts/section';
import { PAGE_CSS } from './page-css';

/** Escape text for HTML element content and attribute values. */
export function esc(s: string | number): string {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** What goes on one report page. */
export interface PageInput {
  readonly title: string;
  /** Plain-text lines under the title. */
  readonly subtitle: readonly string[];
  /** Warnings shown in a box at the top (a truncated log, malformed events). */
  readonly warnings: readonly string[];
  /** Agent colour key, shown once at the top (omitted for ablation pages). */
  readonly agents?: ColorScale;
  readonly sections: readonly Section[];
  readonly footer: string;
}

/** A rendered page, and every chart warning met while rendering it. */
export interface RenderedPage {
  readonly html: string;
  readonly chartWarnings: string[];
}

/**
 * Render a report page as one self-contained HTML file: inline CSS, charts as inline SVG, no
 * scripts, fonts, images or links to anything outside the file.
 */
export async function renderPage(p: PageInput): Promise<RenderedPage> {
  const { html: main, chartWarnings } = await renderSections(p.sections);
  const nav = p.sections.map((s) => `<a href="#${esc(s.id)}">${esc(s.heading)}</a>`).join('');
  const legend = p.agents && p.agents.domain.length > 0
    ? `<div class="agents" id="agent-key">${p.agents.domain.map((a, i) => `<span class="agent"><span class="swatch" style="background:${esc(p.agents!.range[i]!)}"></span>${esc(a)}</span>`).join('')}</div>`
    : '';
  const warnings = p.warnings.length ? `<div class="warnings">${p.warnings.map((w) => `<p>⚠ ${esc(w)}</p>`).join('')}</div>` : '';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>${esc(p.title)}</h1>${p.subtitle.map((l) => `<p class="subtitle">${esc(l)}</p>`).join('')}${legend}<nav>${nav}</nav></header>
${warnings}
<main>
${main}
</main>
<footer>${esc(p.footer)}</footer>
</body>
</html>
`;
  return { html, chartWarnings };
}

/**
 * The `<section>`s of a page, charts rendered to inline SVG: the body of a report page, and what
 * the live watch page swaps in as a run goes on (one renderer for both).
 */
export async function renderSections(sections: readonly Section[]): Promise<RenderedPage> {
  const chartWarnings: string[] = [];
  const body: string[] = [];
  for (const s of sections) {
    const parts: string[] = [`<section id="${esc(s.id)}"><h2>${esc(s.heading)}</h2>`];
    if (s.intro) parts.push(`<p class="intro">${esc(s.intro)}</p>`);
    if (s.figures?.length) parts.push(`<div class="figures">${s.figures.map((f) => `<div class="figure"><div class="value">${esc(f.value)}</div><div class="label">${esc(f.label)}</div></div>`).join('')}</div>`);
    for (const n of s.notes) parts.push(`<p class="note">${esc(n)}</p>`);
    for (const c of s.charts) {
      const r = await renderChart(c);
      chartWarnings.push(...r.warnings.map((w) => `${c.id}: ${w}`));
      parts.push(r.html);
    }
    for (const t of s.tables) parts.push(renderTable(t));
    for (const c of s.code ?? []) {
      const block = `<pre><code>${esc(c.text)}</code></pre>`;
      parts.push(c.collapsed ? `<details><summary>${esc(c.label)}</summary>${block}</details>` : `<p class="code-label">${esc(c.label)}</p>${block}`);
    }
    parts.push('</section>');
    body.push(parts.join('\n'));
  }
  return { html: body.join('\n'), chartWarnings };
}

/** A table as HTML, cells escaped (numbers right-aligned). */
export function renderTable(t: Table): string {
  const head = `<tr>${t.headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = t.rows.map((r) => `<tr>${r.map((c) => `<td${typeof c === 'number' ? ' class="num"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('');
  return `<table><caption>${esc(t.caption)}</caption><thead>${head}</thead><tbody>${rows}</tbody></table>`;
}
