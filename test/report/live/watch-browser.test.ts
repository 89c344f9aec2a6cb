// End to end in headless Chromium (Debian's `chromium`, driven by playwright-core as the report's
// browser test does): the watch page of a run in another process, through a SIGKILL and a resume,
// and of an ablation, with every request that does not go to the watch server refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../src/core/clock';
import { startWatchServer } from '../../../src/report/live/watch-server';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';
import { startGatedProxy, type GatedProxy } from '../../fixtures/gated-proxy';
import { CHROMIUM, CHROMIUM_ARGS } from '../chromium';

const SKIP_REASON = `${CHROMIUM} is absent (Debian: apt-get install chromium; .ci/run installs it), so the watch page is not opened in a browser`;

const root = mkdtempSync(path.join(tmpdir(), 'evo-watch-browser-'));
// QA niches only: no sandbox and no mathjs in the child processes.
const scenario = path.join(root, 'qa.json');
writeFileSync(scenario, JSON.stringify({ name: 'qa', seed: 4, stream: { order: 'shuffled', tasks: 40, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } }));

type Watch = { seqs: number[]; lastSeq: number | null; helloSeq?: number; gaps: number; duplicates: number; figures: { tasksDone: number; state: string; plannedTasks: number } | null; views: number; viewTasks?: number; rows: { name: string; state: string; tasksDone: number }[] | null };

function cli(args: string[]): { child: ChildProcess; exit: Promise<number | null>; stdout: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += String(d); });
  child.stderr!.resume();
  return { child, exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))), stdout: () => out };
}

const fileSeqs = (runDir: string) => readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.endsWith('}')).map((l) => (JSON.parse(l) as { seq: number }).seq);
// Predicates read `__watch?.`: one may run while the page navigates (a row click, #back), before
// the new page has defined it.
const watchState = (page: Page) => page.evaluate(() => (globalThis as unknown as { __watch: Watch }).__watch);

let browser: BrowserContext | null = null;
let profile = '';
/** The killed-and-resumed run's length: enough that charts and figures are drawn more than once. */
const TASKS = 50;
let sim: ServeSim | null = null;
let gate: GatedProxy | null = null;

/** The QA scenario over serve-sim behind the test's gate (for the run that is killed mid-way). */
function gatedScenario(url: string): string {
  const file = path.join(root, 'qa-gated.json');
  writeFileSync(file, JSON.stringify({
    name: 'qa', seed: 4, stream: { order: 'shuffled', tasks: 40, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] },
    model: { backend: 'openai', endpoints: [{ baseURL: url, model: 'sim', maxConcurrency: 8 }], simSideChannel: true, timeoutMs: 120_000, retries: 2, backoff: { baseMs: 20, maxMs: 100 } },
  }));
  return file;
}
const foreign: string[] = [];
const errors: string[] = [];

/** Tasks the run has committed, read from its log. */
function committedTasks(runDir: string): number {
  try {
    return (readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').match(/"type":"task\.done"/g) ?? []).length;
  } catch {
    return 0;
  }
}

async function openPage(url: string): Promise<Page> {
  const page = await browser!.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

describe('the watch page in headless Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    profile = mkdtempSync(path.join(tmpdir(), 'evo-chromium-profile-'));
    sim = await startServeSim({ port: 0, timeScale: 1000 });
    gate = await startGatedProxy(sim.url);
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 }, timeout: 60_000 });
    // Nothing leaves the machine: a request to anything but a local watch server is refused and recorded.
    await browser.route('**/*', (route) => {
      const url = route.request().url();
      if (/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) return route.continue();
      foreign.push(url);
      return route.abort();
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await gate?.close();
    await sim?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('follows a run in another process: the task count rises; after SIGKILL and resume it goes on with no gap and no duplicate', async (ctx) => {
    if (!browser) { console.warn(`skipped: ${SKIP_REASON}`); ctx.skip(SKIP_REASON); }
    const runDir = path.join(root, 'run');
    const server = await startWatchServer(null, { clock: systemClock, port: 0 });
    let page: Page | null = null;
    try {
      page = await openPage(server.url);
      gate!.open();
      const run = cli(['run', gatedScenario(gate!.url), '--tasks', String(TASKS), '--out', runDir, '--quiet', '--no-report']);
      void server.attach(runDir);
      // Killed by the log, not by the page: once 3 tasks are committed the gate shuts (in this
      // process, in the tick that saw them: the run's model calls pass through here, so it cannot
      // finish meanwhile), so the kill lands mid-run however fast the run or slow the page.
      let exited = false;
      void run.exit.then(() => { exited = true; });
      while (!exited && committedTasks(runDir) < 3) await new Promise((r) => setTimeout(r, 3));
      gate!.shut();
      run.child.kill('SIGKILL');
      await run.exit;
      // The page saw the count rise from nothing to what the run committed.
      await page.waitForFunction(() => ((globalThis as unknown as { __watch?: Watch }).__watch?.figures?.tasksDone ?? 0) >= 3, null, { timeout: 60_000 });
      expect(Number(await page.$eval('#progress', (e) => (e as unknown as { dataset: Record<string, string> }).dataset.done))).toBeGreaterThanOrEqual(3);
      const killedAt = fileSeqs(runDir).at(-1)!;
      expect(JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')).status).toBe('running');
      // The page has every event committed before the kill, and nothing else.
      await page.waitForFunction((s) => (globalThis as unknown as { __watch?: Watch }).__watch?.lastSeq === s, killedAt, { timeout: 30_000 });
      // The charts of a run still going say so, with the count they were drawn at: the page's own.
      const killedTasks = committedTasks(runDir);
      await page.waitForFunction((n) => (globalThis as unknown as { __watch?: Watch }).__watch?.viewTasks === n, killedTasks, { timeout: 30_000 });
      const liveTitle = await page.$eval('#view figure#chart-competence-final svg', (s) => s.textContent ?? '');
      expect(liveTitle).toContain(`Competence so far (after ${killedTasks} tasks)`);
      expect(liveTitle).not.toContain('at the end');
      expect(await page.$eval('#progress', (e) => e.textContent)).toMatch(new RegExp(`^${killedTasks} / ${TASKS} tasks · running`));

      gate!.open();
      const resume = cli(['resume', runDir, '--quiet', '--no-report']);
      expect(await resume.exit).toBe(0);
      const all = fileSeqs(runDir);
      await page.waitForFunction((s) => (globalThis as unknown as { __watch?: Watch }).__watch?.lastSeq === s, all.at(-1)!, { timeout: 30_000 });
      await page.waitForFunction(() => (globalThis as unknown as { __watch?: Watch }).__watch?.figures?.state === 'finished', null, { timeout: 30_000 });
      const w = await watchState(page);
      expect(w.gaps).toBe(0);
      expect(w.duplicates).toBe(0);
      expect(w.seqs.length).toBeGreaterThan(0);
      expect(w.seqs).toEqual(all.filter((s) => s > w.helloSeq!));
      expect(w.seqs.some((s) => s > killedAt)).toBe(true);
      expect(w.figures!.tasksDone).toBe(TASKS);
      await page.waitForSelector('#view section#competence figure.chart svg', { timeout: 30_000 });
      // Finished: the pill says so (not "live"), and the last charts were drawn at the end.
      expect(await page.$eval('#conn', (e) => e.textContent)).toBe('finished');
      // The view drawn at the last task while the run was still going says "so far"; the one drawn
      // once it finished, at the same count, says "at the end": wait for that one.
      await page.waitForFunction((n) => (globalThis as unknown as { __watch?: Watch }).__watch?.viewTasks === n, TASKS, { timeout: 30_000 });
      await page.waitForFunction((t) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('#view figure#chart-competence-final svg')?.textContent?.includes(t) ?? false,
        `Competence at the end (after ${TASKS} tasks)`, { timeout: 30_000 });
      await page.waitForSelector('#view section#roster table', { timeout: 30_000 });
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      // Closed before the server, so its reconnect attempts log nothing into the next test.
      await page?.close();
      await server.close();
    }
  }, 180_000);

  it('shows an ablation as a row per run; clicking one follows that run', async (ctx) => {
    if (!browser) { console.warn(`skipped: ${SKIP_REASON}`); ctx.skip(SKIP_REASON); }
    const out = path.join(root, 'ablation');
    const ablate = cli(['ablate', scenario, '--variants', 'evochamber,no-codream', '--seeds', '1', '--tasks', '25', '--out', out, '--quiet']);
    await vi.waitFor(() => expect(existsSync(path.join(out, 'ablation-plan.json'))).toBe(true), { timeout: 60_000, interval: 100 });
    // `evochamber watch` as its own process: it outlives the ablation, so the test never races it.
    const watch = cli(['watch', out, '--port', '0']);
    let page: Page | null = null;
    try {
      await vi.waitFor(() => expect(watch.stdout()).toMatch(/open http:\/\/127\.0\.0\.1:\d+\//), { timeout: 60_000, interval: 100 });
      const url = /open (http:\/\/\S+)/.exec(watch.stdout())![1]!;
      page = await openPage(url);
      await page.waitForFunction(() => ((globalThis as unknown as { __watch?: Watch }).__watch?.rows?.length ?? 0) >= 1, null, { timeout: 60_000 });
      const name = await page.$eval('#ablation tbody tr', (tr) => (tr as unknown as { dataset: Record<string, string> }).dataset.run!);
      await Promise.all([page.waitForURL(/\?run=/), page.click(`#ablation tbody tr[data-run="${name}"]`)]);
      expect(await page.title()).toContain(name);
      expect(await ablate.exit).toBe(0);
      await page.waitForFunction(() => (globalThis as unknown as { __watch?: Watch }).__watch?.figures?.state === 'finished', null, { timeout: 60_000 });
      const w = await watchState(page);
      expect(w.figures!.tasksDone).toBe(25);
      expect(w.gaps + w.duplicates).toBe(0);
      expect(w.seqs).toEqual(fileSeqs(path.join(out, name)).filter((s) => s > w.helloSeq!));
      await page.waitForSelector('#view section#accuracy figure.chart svg', { timeout: 30_000 });
      await page.click('#back');
      await page.waitForFunction(() => ((globalThis as unknown as { __watch?: Watch }).__watch?.rows ?? []).filter((r) => r.state === 'finished').length === 2, null, { timeout: 60_000 });
      // The comparison charts, drawn from the runs' logs, above the run table: one line per variant, the sweep's 50 tasks.
      await page.waitForFunction(() => (globalThis as unknown as { __watch?: Watch }).__watch?.viewTasks === 50, null, { timeout: 60_000 });
      expect(await page.$eval('#conn', (e) => e.textContent)).toBe('finished');
      const lines = await page.$$eval('#view figure#chart-ablation-rolling svg path[aria-roledescription="line mark"]', (p) => p.map((x) => /variant: ([^;]+)/.exec(x.getAttribute('aria-label') ?? '')?.[1]).sort());
      expect(lines).toEqual(['evochamber', 'no-codream']);
      for (const id of ['ablation-accuracy', 'ablation-niches', 'ablation-population', 'ablation-cost-tokens']) await page.waitForSelector(`#view figure#chart-${id} svg`);
      expect(await page.$$eval('main > *', (els) => els.map((e) => e.id))).toEqual(['warnings', 'view', 'runs-section']);
      const shot = path.join(root, 'watch-ablation.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`ablation watch screenshot: ${shot}`);
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await page?.close();
      watch.child.kill('SIGTERM');
      await watch.exit;
    }
  }, 180_000);
});
