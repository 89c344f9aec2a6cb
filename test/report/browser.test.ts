// End to end: open a report's index.html from disk in headless Chromium (Debian's `chromium`
// package), with every network request refused, and check it renders without a console error.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { RUN_SECTIONS, writeReport } from '../../src/report';
import { writeFixtureRun } from './fixture-run';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium';

const SKIP_REASON = `${CHROMIUM} is absent (Debian: apt-get install chromium; .ci/run installs it), so the report is not opened in a browser`;

describe('a report opened in headless Chromium', () => {
  it('renders every section and chart from disk, with no console error and no network request', async (ctx) => {
    if (!existsSync(CHROMIUM)) {
      console.warn(`skipped: ${SKIP_REASON}`);
      ctx.skip(SKIP_REASON);
    }
    const root = mkdtempSync(path.join(tmpdir(), 'evo-browser-'));
    const dir = writeFixtureRun(path.join(root, 'fixture'));
    const report = await writeReport(dir, { outDir: path.join(root, 'report'), clock: new ManualClock() });
    const profile = mkdtempSync(path.join(tmpdir(), 'evo-chromium-profile-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 }, timeout: 60_000,
    });
    try {
      const errors: string[] = [];
      const requests: string[] = [];
      await browser.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file://')) return route.continue();
        requests.push(url);
        return route.abort();
      });
      const page = await browser.newPage();
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(report.indexPath).href, { waitUntil: 'load' });

      expect(await page.title()).toContain('EvoChamber report');
      expect(await page.$$eval('section', (s) => s.map((x) => x.id))).toEqual([...RUN_SECTIONS]);
      const sizes = await page.$$eval('figure.chart svg', (svgs) => svgs.map((s) => { const r = s.getBoundingClientRect(); return [r.width, r.height]; }));
      expect(sizes.length).toBe(9);
      for (const [w, h] of sizes) {
        expect(w).toBeGreaterThan(100);
        expect(h).toBeGreaterThan(50);
      }
      const shot = path.join(root, 'report.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`report screenshot: ${shot}`);
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
