// End to end: a real ablation on the simulated model, its report opened from disk in headless
// Chromium (Debian's `chromium` package) and screenshotted; the comparison charts must be drawn
// with one series per variant.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { loadScenario, runAblation } from '../../src/index';
import { ABLATION_SECTIONS, writeReport } from '../../src/report';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium';

const SKIP_REASON = `${CHROMIUM} is absent (Debian: apt-get install chromium; .ci/run installs it), so the ablation report is not opened in a browser`;
const VARIANTS = ['evochamber', 'no-codream', 'single-agent'];

/** The variants a chart's marks of one role name in their descriptions (`variant: X`). */
const seriesIn = (page: import('playwright-core').Page, chart: string, role: string) => page.$$eval(
  `figure#chart-${chart} svg [aria-roledescription="${role}"]`,
  (marks) => [...new Set(marks.map((m) => /variant: ([^;]+)/.exec(m.getAttribute('aria-label') ?? '')?.[1]).filter(Boolean))].sort(),
);

describe('an ablation report opened in headless Chromium', () => {
  it('draws the comparison charts with one series per variant, from a real ablation', async (ctx) => {
    if (!existsSync(CHROMIUM)) {
      console.warn(`skipped: ${SKIP_REASON}`);
      ctx.skip(SKIP_REASON);
    }
    const root = mkdtempSync(path.join(tmpdir(), 'evo-ablation-browser-'));
    const outDir = path.join(root, 'ablate');
    await runAblation(loadScenario(path.resolve('scenarios/quickstart.json')), { variants: VARIANTS, seeds: 2, patch: { 'stream.tasks': 30 }, outDir });
    const report = await writeReport(outDir, { outDir: path.join(root, 'report'), clock: new ManualClock() });
    expect(report.chartWarnings).toEqual([]);
    const profile = mkdtempSync(path.join(tmpdir(), 'evo-chromium-profile-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 }, timeout: 60_000,
    });
    try {
      const errors: string[] = [];
      await browser.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
      const page = await browser.newPage();
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(report.indexPath).href, { waitUntil: 'load' });
      expect(await page.$$eval('section', (s) => s.map((x) => x.id))).toEqual([...ABLATION_SECTIONS]);
      for (const id of ['ablation-rolling', 'ablation-population', 'ablation-cost-tokens']) {
        const box = await page.$eval(`figure#chart-${id} svg`, (s) => { const r = s.getBoundingClientRect(); return [r.width, r.height]; });
        expect(box[0], id).toBeGreaterThan(200);
        expect(box[1], id).toBeGreaterThan(100);
      }
      const sorted = [...VARIANTS].sort();
      // Rolling accuracy: one line per variant, each over the whole stream.
      expect(await seriesIn(page, 'ablation-rolling', 'line mark')).toEqual(sorted);
      expect(await page.$$eval('figure#chart-ablation-rolling svg path[aria-roledescription="line mark"]', (p) => p.length)).toBe(VARIANTS.length);
      // Cost against accuracy: a point per variant; the Pareto front holds the cheapest one at least.
      expect(await seriesIn(page, 'ablation-cost-tokens', 'point')).toEqual(sorted);
      expect(await page.$$eval('figure#chart-ablation-cost-tokens svg [aria-roledescription="point"]', (p) => p.map((x) => x.getAttribute('aria-label')).filter((l) => l?.includes('on the Pareto front')).length)).toBeGreaterThan(0);
      // CoDream and lifecycle: bars of every variant that has any (single-agent has none).
      expect((await seriesIn(page, 'ablation-population', 'bar')).length).toBeGreaterThanOrEqual(1);
      const shot = path.join(root, 'ablation-report.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`ablation report screenshot: ${shot}`);
      expect(statSync(shot).size).toBeGreaterThan(50_000);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 60_000);
});
