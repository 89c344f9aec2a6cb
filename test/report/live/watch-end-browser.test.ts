// The live page always ends: a `run --watch --no-report` page shows "finished", "interrupted" or
// "crashed" when the run is over, never "reconnecting", in headless Chromium (Debian's chromium,
// driven by playwright-core as the other browser tests do). The run's model is serve-sim behind a
// gate the test opens once the page is connected: a run that ends by itself is then still going
// when the page arrives, on a fast machine as on a slow one.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';
import { startGatedProxy, type GatedProxy } from '../../fixtures/gated-proxy';
import { CHROMIUM, CHROMIUM_ARGS } from '../chromium';

const SKIP_REASON = `${CHROMIUM} is absent (Debian: apt-get install chromium), so the watch page is not opened in a browser`;
const root = mkdtempSync(path.join(tmpdir(), 'evo-watch-end-'));

/** A scenario over `url` (QA niches only: no sandbox and no mathjs in the run's process). */
function scenarioOver(name: string, url: string): string {
  const file = path.join(root, `${name}.json`);
  writeFileSync(file, JSON.stringify({
    name: 'qa', seed: 4, stream: { order: 'shuffled', tasks: 400, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] },
    // Held requests wait for the page, so the timeout is long; nothing else is slow.
    model: { backend: 'openai', endpoints: [{ baseURL: url, model: 'sim', maxConcurrency: 8 }], simSideChannel: true, timeoutMs: 120_000, retries: 2, backoff: { baseMs: 20, maxMs: 100 } },
  }));
  return file;
}

type Watch = { end?: string; opens: number; figures: { tasksDone: number; state: string } | null };
let browser: BrowserContext | null = null;
let profile = '';
let sim: ServeSim | null = null;
const gates: GatedProxy[] = [];

/** `run --watch=0 --no-report` in a child process; resolves the page's URL once the watch server prints it. */
function watchedRun(name: string, scenario: string, tasks: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', scenario, '--tasks', String(tasks), '--no-report', '--quiet', '--watch=0', '--out', path.join(root, name)], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.resume();
  let err = '';
  const url = new Promise<string>((resolve) => child.stderr.on('data', (d) => {
    err += String(d);
    const m = /watch: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(err);
    if (m) resolve(m[1]!);
  }));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exit, stderr: () => err };
}

describe('the live page ends', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    profile = mkdtempSync(path.join(tmpdir(), 'evo-chromium-profile-'));
    // Answers at 1/1000 of serve-sim's modelled latency: calls take about a millisecond.
    sim = await startServeSim({ port: 0, timeScale: 1000 });
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all(gates.map((g) => g.close()));
    await sim?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  for (const [how, stop, code] of [['finished', null, 0], ['interrupted', 'SIGTERM', 4], ['crashed', 'SIGKILL', null]] as const) {
    it(`shows "${how}" at the end of a --no-report run${stop ? ` stopped by ${stop}` : ''}`, async (ctx) => {
      if (!browser) { console.warn(`skipped: ${SKIP_REASON}`); ctx.skip(SKIP_REASON); }
      // The run's model calls wait at the gate until the page is connected to the live stream.
      const gate = await startGatedProxy(sim!.url);
      gates.push(gate);
      const run = watchedRun(how, scenarioOver(how, gate.url), stop ? 400 : 20);
      const page = await browser!.newPage();
      try {
        await page.goto(await run.url, { waitUntil: 'load' });
        await page.waitForFunction(() => ((globalThis as unknown as { __watch?: { opens: number } }).__watch?.opens ?? 0) >= 1, null, { timeout: 60_000 });
        gate.open();
        // Connected, with the run under way: then it ends, by itself or stopped.
        await page.waitForFunction(() => ((globalThis as unknown as { __watch?: Watch }).__watch?.figures?.tasksDone ?? 0) >= 1, null, { timeout: 60_000 });
        if (stop) run.child.kill(stop);
        expect(await run.exit).toBe(code);
        await page.waitForFunction(() => (globalThis as unknown as { __watch?: Watch }).__watch?.end !== undefined, null, { timeout: 30_000 });
        expect((await page.evaluate(() => (globalThis as unknown as { __watch: Watch }).__watch)).end).toBe(how);
        expect(await page.$eval('#conn', (e) => e.textContent)).toBe(how);
        expect(run.stderr()).not.toMatch(/watch: watch:/);
      } finally {
        await page.close();
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
      }
    }, 120_000);
  }
});
