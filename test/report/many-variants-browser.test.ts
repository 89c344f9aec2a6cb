// Charts that hold at many variants: an ablation report and the live ablation page at 3 and 15 variants,
// opened in headless Chromium (Debian's `chromium`, driven by playwright-core) at 1,400 px. Every
// variant's colour is distinct (CIELAB ΔE76 ≥ 20 between any two), no text box of a chart overlaps
// another, and nothing scrolls sideways.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/core/clock';
import { writeReport } from '../../src/report';
import { startWatchServer } from '../../src/report/live/watch-server';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium';
import { baseRuns, manyVariantAblation, VARIANT_NAMES } from './many-variants';

// What the page callbacks read in the browser (the tests' types have no DOM library).
declare const document: { documentElement: { scrollWidth: number } };
declare function getComputedStyle(e: unknown): { fill: string; visibility: string };

const SKIP_REASON = `${CHROMIUM} is absent (Debian: apt-get install chromium), so the charts are not opened in a browser`;
const root = mkdtempSync(path.join(tmpdir(), 'evo-many-variants-'));
const dirs = new Map<number, string>();
let browser: Browser | null = null;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  const base = await baseRuns(root, [1, 2], 24);
  for (const n of [3, 15]) dirs.set(n, await manyVariantAblation(root, n, base));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(root, { recursive: true, force: true });
});

/** sRGB hex or rgb() → CIELAB (D65). */
function lab(color: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  const rgb = m ? [0, 2, 4].map((i) => parseInt(m[1]!.slice(i, i + 2), 16)) : (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const lin = rgb.map((c) => { const v = c / 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  const [r, g, b] = lin as [number, number, number];
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const y = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const z = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}
const deltaE = (a: string, b: string) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]!));

/** Each variant's fill in a chart's marks (read from the marks' own descriptions), variant → colour. */
async function variantFills(page: Page, scope: string, chart: string): Promise<Map<string, string>> {
  const pairs = await page.$$eval(`${scope} figure#chart-${chart} svg path[aria-roledescription="bar"]`, (marks) => marks.map((m) => [
    /variant: ([^;]+)/.exec(m.getAttribute('aria-label') ?? '')?.[1] ?? '', m.getAttribute('fill') ?? getComputedStyle(m).fill,
  ] as [string, string]));
  return new Map(pairs.filter(([v]) => v));
}

/** Pairs of text boxes that overlap in any chart under `scope` (each chart's SVG text, screen boxes, 1 px of slack). */
async function overlappingText(page: Page, scope: string): Promise<string[]> {
  return page.$$eval(`${scope} figure svg`, (svgs) => svgs.flatMap((svg) => {
    const texts = [...svg.querySelectorAll('text')].filter((t) => (t.textContent ?? '').trim() !== '' && getComputedStyle(t).visibility !== 'hidden' && t.getAttribute('opacity') !== '0');
    const boxes = texts.map((t) => {
      const r = t.getBoundingClientRect();
      // A rotated label's screen box is its rotated rectangle's bounding box: shrink it to the glyphs' own band.
      const rotated = /rotate\((-?\d+)/.exec(t.getAttribute('transform') ?? '');
      return { text: t.textContent!, r, rotated: rotated ? Number(rotated[1]) : 0 };
    });
    const out: string[] = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        if (a.rotated !== 0 || b.rotated !== 0) continue;
        if (a.r.left < b.r.right - 1 && b.r.left < a.r.right - 1 && a.r.top < b.r.bottom - 1 && b.r.top < a.r.bottom - 1) out.push(`${svg.closest('figure')?.id}: "${a.text}" / "${b.text}"`);
      }
    }
    return out;
  }));
}

/** The checks every page passes at n variants; `scope` is where its charts are. */
async function checkPage(page: Page, scope: string, n: number, shot: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
  expect(await page.$$eval(`${scope} figure`, (fs) => fs.filter((f) => f.scrollWidth > f.clientWidth + 1).map((f) => f.id))).toEqual([]);
  const fills = await variantFills(page, scope, 'ablation-accuracy');
  expect([...fills.keys()].sort()).toEqual(VARIANT_NAMES.slice(0, n).sort());
  const colours = [...fills.values()];
  const close: string[] = [];
  colours.forEach((a, i) => colours.slice(i + 1).forEach((b, j) => { if (deltaE(a, b) < 20) close.push(`${[...fills.keys()][i]} ${a} ~ ${[...fills.keys()][i + 1 + j]} ${b}`); }));
  expect(close).toEqual([]);
  expect(await overlappingText(page, scope)).toEqual([]);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
}

describe('charts at many variants, in headless Chromium at 1,400 px', () => {
  it.for([3, 15])('the ablation report at %i variants: distinct colours, no overlapping text, no sideways scroll', { timeout: 60_000 }, async (n, ctx) => {
    if (!browser) { console.warn(`skipped: ${SKIP_REASON}`); ctx.skip(SKIP_REASON); }
    const report = await writeReport(dirs.get(n)!, { outDir: path.join(root, `report-${n}`), clock: new ManualClock() });
    expect(report.chartWarnings).toEqual([]);
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(pathToFileURL(report.indexPath).href, { waitUntil: 'load' });
    await page.waitForSelector('figure#chart-ablation-paired svg');
    await checkPage(page, 'main', n, path.join(root, `report-${n}.png`));
    await page.close();
  });

  it.for([3, 15])('the live ablation page at its end at %i variants: the same', { timeout: 60_000 }, async (n, ctx) => {
    if (!browser) { console.warn(`skipped: ${SKIP_REASON}`); ctx.skip(SKIP_REASON); }
    const server = await startWatchServer(dirs.get(n)!, { clock: systemClock, port: 0, minRenderMs: 100 });
    try {
      const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(server.url, { waitUntil: 'load' });
      await page.waitForSelector('#view figure#chart-ablation-paired svg', { timeout: 30_000 });
      // The end's view is the report's own: completion tokens are known.
      expect(await page.$eval('#view section#cost', (s) => s.textContent)).not.toContain('completion tokens–');
      await checkPage(page, '#view', n, path.join(root, `live-${n}.png`));
      await page.close();
    } finally {
      await server.close();
    }
  });
});
