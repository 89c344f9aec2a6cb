// `npm run screenshot`: regenerate docs/report-screenshot.png, the report picture in the README,
// from a fresh run of scenarios/quickstart.json on the simulated model, opened in headless
// Chromium (Debian's `chromium` package; playwright-core drives it and downloads no browser).
//
//   npm run screenshot                         # → docs/report-screenshot.png (top of the report)
//   npm run screenshot -- --full               # the whole page
//   npm run screenshot -- --out /tmp/shot.png  # somewhere else
//   npm run screenshot -- --watch              # → docs/watch-screenshot.png: the live page of a run under way
//   CHROMIUM=/path/to/chrome npm run screenshot
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { loadScenario, runScenario, writeReport } from '../../src/index';
import { systemClock } from '../../src/core/clock';
import { startWatchServer } from '../../src/report/live/watch-server';
import { CHROMIUM, CHROMIUM_ARGS } from '../report/chromium';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Wide enough for every chart, narrow enough to read in a README. */
const VIEWPORT = { width: 1100, height: 900 };
/** The README picture shows the page down to the lineage's family tree and its caption (competence, specialists, lineage). */
const LAST_CHART = 'chart-lineage-tree';

const { values } = parseArgs({
  options: { out: { type: 'string' }, full: { type: 'boolean' }, keep: { type: 'boolean' }, watch: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  process.stdout.write('Usage: npm run screenshot -- [--out FILE] [--full] [--keep] [--watch]\n  --out FILE  where the PNG goes (default docs/report-screenshot.png, docs/watch-screenshot.png with --watch)\n  --full      the whole page (default: down to the lineage family tree)\n  --keep      keep the run and report directory (printed)\n  --watch     the live page of `evochamber watch` on a run under way, instead of the report\n');
  process.exit(0);
}
const chromiumPath = process.env.CHROMIUM ?? CHROMIUM;
if (!existsSync(chromiumPath)) {
  process.stderr.write(`screenshot: ${chromiumPath} not found: apt-get install chromium, or set CHROMIUM to a Chromium or Chrome binary\n`);
  process.exit(1);
}
const out = path.resolve(values.out ?? path.join(ROOT, 'docs', values.watch ? 'watch-screenshot.png' : 'report-screenshot.png'));
// A fixed place, so the paths the report prints are the same on every regeneration.
const work = path.join(tmpdir(), 'evochamber-screenshot');
rmSync(work, { recursive: true, force: true });
if (values.watch) {
  await watchScreenshot();
  process.exit(0);
}

process.stderr.write('running scenarios/quickstart.json on the simulated model…\n');
const { runDir, summary } = await runScenario(loadScenario(path.join(ROOT, 'scenarios', 'quickstart.json')), { outDir: path.join(work, 'run'), report: false });
const report = await writeReport(runDir, { outDir: path.join(work, 'report') });
process.stderr.write(`run finished: ${summary.tasks} tasks, accuracy ${summary.accuracy.toFixed(3)}; report ${report.indexPath}\n`);

const profile = path.join(work, 'chromium-profile');
const browser = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, viewport: VIEWPORT, timeout: 60_000 });
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

/**
 * The live page of a quickstart run under way: the run goes on in a child process (`evochamber
 * run`), the watch server follows its directory from this one, and the picture is taken once 60 %
 * of its tasks are in and the charts have been drawn from them; then the run is stopped.
 */
async function watchScreenshot(): Promise<void> {
  const server = await startWatchServer(null, { clock: systemClock, port: 0 });
  const total = loadScenario(path.join(ROOT, 'scenarios', 'quickstart.json')).scenario.stream.tasks;
  const runDir = path.join(work, 'run');
  process.stderr.write(`running scenarios/quickstart.json on the simulated model in a child process, watched at ${server.url}…\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'run', path.join(ROOT, 'scenarios', 'quickstart.json'), '--out', runDir, '--quiet', '--no-report'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  void server.attach(runDir);
  const browser = await chromium.launchPersistentContext(path.join(work, 'chromium-profile'), { executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, viewport: { width: VIEWPORT.width, height: 1400 }, timeout: 60_000 });
  try {
    await browser.route('**/*', (route) => (route.request().url().startsWith(`http://127.0.0.1:${server.port}/`) ? route.continue() : route.abort()));
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url, { waitUntil: 'load' });
    type W = { __watch: { figures: { tasksDone: number } | null; lastSeq: number; viewSeq?: number } };
    await page.waitForFunction((n) => ((globalThis as unknown as W).__watch.figures?.tasksDone ?? 0) >= n, Math.ceil(total * 0.6), { timeout: 600_000, polling: 200 });
    // Charts drawn from at least that point (the server renders at most once a second).
    const seq = await page.evaluate(() => (globalThis as unknown as W).__watch.lastSeq);
    await page.waitForFunction((s) => ((globalThis as unknown as W).__watch.viewSeq ?? -1) >= s, seq, { timeout: 120_000, polling: 200 });
    if (errors.length > 0) throw new Error(`the watch page logged errors in Chromium: ${errors.join('; ')}`);
    mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: Boolean(values.full), ...(values.full ? {} : { clip: { x: 0, y: 0, width: VIEWPORT.width, height: 1400 } }) });
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await exited;
    await server.close();
  }
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  process.stdout.write(`${path.relative(process.cwd(), out) || out}: ${(statSync(out).size / 1024).toFixed(0)} KiB${values.keep ? ` (run kept in ${work})` : ''}\n`);
}
