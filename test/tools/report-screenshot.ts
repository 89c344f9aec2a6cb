// `npm run screenshot`: regenerate docs/report-screenshot.png, the report picture in the README,
// from a fresh run of scenarios/quickstart.json on the simulated model, opened in headless
// Chromium (Debian's `chromium` package; playwright-core drives it and downloads no browser).
//
//   npm run screenshot                         # → docs/report-screenshot.png (top of the report)
//   npm run screenshot -- --full               # the whole page
//   npm run screenshot -- --out /tmp/shot.png  # somewhere else
//   CHROMIUM=/path/to/chrome npm run screenshot
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { loadScenario, runScenario, writeReport } from '../../src/index';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Wide enough for every chart, narrow enough to read in a README. */
const VIEWPORT = { width: 1100, height: 900 };
/** The README picture shows the page down to the lineage's family tree and its caption (competence, specialists, lineage). */
const LAST_CHART = 'chart-lineage-tree';

const { values } = parseArgs({
  options: { out: { type: 'string' }, full: { type: 'boolean' }, keep: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  process.stdout.write('Usage: npm run screenshot -- [--out FILE] [--full] [--keep]\n  --out FILE  where the PNG goes (default docs/report-screenshot.png)\n  --full      the whole page (default: down to the lineage family tree)\n  --keep      keep the run and report directory (printed)\n');
  process.exit(0);
}
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  process.stderr.write(`screenshot: ${chromiumPath} not found: apt-get install chromium, or set CHROMIUM to a Chromium or Chrome binary\n`);
  process.exit(1);
}
const out = path.resolve(values.out ?? path.join(ROOT, 'docs', 'report-screenshot.png'));
// A fixed place, so the paths the report prints are the same on every regeneration.
const work = path.join(tmpdir(), 'evochamber-screenshot');
rmSync(work, { recursive: true, force: true });

process.stderr.write('running scenarios/quickstart.json on the simulated model…\n');
const { runDir, summary } = await runScenario(loadScenario(path.join(ROOT, 'scenarios', 'quickstart.json')), { outDir: path.join(work, 'run'), report: false });
const report = await writeReport(runDir, { outDir: path.join(work, 'report') });
process.stderr.write(`run finished: ${summary.tasks} tasks, accuracy ${summary.accuracy.toFixed(3)}; report ${report.indexPath}\n`);

const profile = path.join(work, 'chromium-profile');
const browser = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: ARGS, viewport: VIEWPORT, timeout: 60_000 });
try {
  // The report is self-contained: refuse anything but the file itself, as a reader offline would.
  await browser.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(pathToFileURL(report.indexPath).href, { waitUntil: 'load' });
  if (errors.length > 0) throw new Error(`the report logged errors in Chromium: ${errors.join('; ')}`);
  mkdirSync(path.dirname(out), { recursive: true });
  if (values.full) {
    await page.screenshot({ path: out, fullPage: true });
  } else {
    // The page has not scrolled, so boxes are in page coordinates. The chart's caption follows it.
    const bottom = await page.$eval(`#${LAST_CHART}`, (f) => {
      const next = f.nextElementSibling;
      return Math.ceil((next?.tagName === 'P' ? next : f).getBoundingClientRect().bottom + 16);
    });
    await page.screenshot({ path: out, fullPage: true, clip: { x: 0, y: 0, width: VIEWPORT.width, height: bottom } });
  }
} finally {
  await browser.close();
}
if (!values.keep) rmSync(work, { recursive: true, force: true });
process.stdout.write(`${path.relative(process.cwd(), out) || out}: ${(statSync(out).size / 1024).toFixed(0)} KiB${values.keep ? ` (run and report kept in ${work})` : ''}\n`);
