// What every report page must satisfy, as plain functions the report tests share.
import { expect } from 'vitest';

/** Every external resource reference in a page: src/href to http(s), script src, @import, remote url(), <link>. */
export function externalReferences(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/\b(?:src|href|xlink:href|action|poster|srcset)\s*=\s*["']?\s*((?:https?:)?\/\/[^"'\s>]*)/gi)) found.push(m[0]);
  for (const m of html.matchAll(/<script\b[^>]*\bsrc\s*=/gi)) found.push(m[0]);
  for (const m of html.matchAll(/@import\b[^;]*/gi)) found.push(m[0]);
  for (const m of html.matchAll(/url\(\s*["']?(?:https?:)?\/\/[^)]*\)/gi)) found.push(m[0]);
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) found.push(m[0]);
  for (const m of html.matchAll(/<(?:iframe|img|object|embed)\b[^>]*>/gi)) found.push(m[0]);
  return found;
}

/** The `id`s of the page's `<section>`s, in order. */
export function sectionIds(html: string): string[] {
  return [...html.matchAll(/<section id="([^"]+)"/g)].map((m) => m[1]!);
}

/** The HTML of one section. */
export function sectionHtml(html: string, id: string): string {
  const start = html.indexOf(`<section id="${id}"`);
  if (start < 0) return '';
  return html.slice(start, html.indexOf('</section>', start));
}

/** A rendered chart: its id, its SVG, and the number of data marks (not axes, legends or titles) it draws. */
export interface ChartFound {
  readonly id: string;
  readonly svg: string;
  readonly marks: number;
  /** Title texts in the SVG (the chart's own title, and facet headers). */
  readonly titles: string[];
  readonly caption: string;
}

/** Every chart figure on the page. */
export function charts(html: string): ChartFound[] {
  return [...html.matchAll(/<figure class="chart" id="chart-([^"]+)"[^>]*>([\s\S]*?)<figcaption>([\s\S]*?)<\/figcaption><\/figure>/g)].map((m) => {
    const svg = m[2]!;
    const roles = [...svg.matchAll(/aria-roledescription="([^"]+)"/g)].map((r) => r[1]!);
    const marks = roles.filter((r) => !r.endsWith('container') && !['axis', 'legend', 'title'].includes(r)).length;
    const titles = [...svg.matchAll(/aria-label="Title text &#39;([^"]*)&#39;"|aria-label="Title text '([^"]*)'"/g)].map((t) => t[1] ?? t[2]!);
    return { id: m[1]!, svg, marks, titles, caption: m[3]!.trim() };
  });
}

/** Assert the page is self-contained and every chart is a real, titled, captioned chart with marks and axis titles. */
export function expectWellFormedReport(html: string): ChartFound[] {
  expect(html.startsWith('<!doctype html>')).toBe(true);
  expect(externalReferences(html)).toEqual([]);
  const found = charts(html);
  for (const c of found) {
    expect(c.svg, c.id).toMatch(/^<svg /);
    expect(c.marks, `chart ${c.id} draws no marks`).toBeGreaterThan(0);
    expect(c.titles.length, `chart ${c.id} has no title`).toBeGreaterThan(0);
    expect(c.caption, `chart ${c.id} has no caption`).toMatch(/\w.*\.$/);
    expect(c.svg, `chart ${c.id} has no axis title`).toMatch(/role-axis-title/);
  }
  return found;
}
