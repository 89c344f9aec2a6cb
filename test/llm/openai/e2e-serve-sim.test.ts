import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { SIDE_CHANNEL_FIELD } from '../../../src/sim/served-side-channel';
import { formatSummary } from '../../../src/cli/format-summary';
import { startServeSim, type RecordedRequest, type ServeSim } from '../../../src/sim/server/serve-sim';
import { doneTaskIds, outDir, quickstartOver } from './e2e-helpers';

// The quickstart over HTTP: serve-sim in process on a random port, the engine through the
// OpenAI pool, as a user would run `evochamber serve-sim` and `evochamber run --backend openai`.
let sim: ServeSim;
const seen: RecordedRequest[] = [];
beforeAll(async () => { sim = await startServeSim({ port: 0, timeScale: 3000, onRequest: (r) => seen.push(r) }); });
afterAll(async () => { await sim.close(); });

const KEY_VAR = 'EVO_E2E_SECRET_KEY';
const KEY = 'sk-e2e-9b1f3c5d7e2a4c6e8f0a1b3d5c7e9f1a';

describe('quickstart against serve-sim through the openai backend', () => {
  it('completes every task with the accuracy the in-process simulator reaches', async () => {
    const dir = outDir();
    const { summary } = await runScenario(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8 }] }), { patch: { 'stream.tasks': 24 }, report: false, outDir: dir });
    expect(summary.tasks).toBe(24);
    expect(summary.backend).toBe('openai');
    expect(summary.failures).toBe(0);
    expect(new Set(doneTaskIds(dir)).size).toBe(24);
    expect(summary.accuracy).toBeGreaterThan(0.1);
    const local = await runScenario(loadScenario(path.resolve('scenarios/quickstart.json')), { patch: { 'stream.tasks': 24 }, report: false, outDir: outDir() });
    expect(Math.abs(summary.accuracy - local.summary.accuracy)).toBeLessThanOrEqual(0.15);
    const ep = Object.values(summary.endpoints!)[0]!;
    // Cancelled attempts (speculative voting) were sent too: they are requests, not calls.
    expect(ep.requests).toBe(summary.tokens.total.calls + ep.aborted);
    expect(ep.completionTokens).toBe(summary.tokens.total.completionTokens);
  });

  it('runs the quickstart through the CLI (evochamber run --backend openai --base-url …)', async () => {
    const dir = outDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', 'scenarios/quickstart.json',
      '--backend', 'openai', '--base-url', sim.url, '--api-key-env', KEY_VAR, '--tasks', '12', '--json', '--no-report', '--out', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, [KEY_VAR]: KEY } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, err).toBe(0);
    const summary = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(summary.tasks).toBe(12);
    expect(summary.endpoints[`sim@${sim.url.replace('http://', '')}`].requests).toBeGreaterThan(0);
    // The printed summary and the progress lines never show the key.
    expect(out + err).not.toContain(KEY.slice(-10));
    expect(readFileSync(path.join(dir, 'run.json'), 'utf8')).not.toContain(KEY.slice(-10));
  });

  it('never writes the API key into run.json, events.jsonl or the printed summary', async () => {
    process.env[KEY_VAR] = KEY;
    const flaky = await startServeSim({ port: 0, timeScale: 3000, faults: 'error=0.2,429=0.1', onRequest: (r) => seen.push(r) });
    try {
      const dir = outDir();
      const before = seen.length;
      const { summary } = await runScenario(quickstartOver({ endpoints: [{ baseURL: flaky.url, model: 'sim', maxConcurrency: 4, apiKeyEnv: KEY_VAR }] }), { patch: { 'stream.tasks': 8 }, report: false, outDir: dir });
      // The key was used (positive control) …
      expect(seen.slice(before).some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
      expect(Object.values(summary.endpoints!)[0]!.failures).toBeGreaterThan(0);
      // … and is nowhere in what the run leaves behind.
      for (const text of [readFileSync(path.join(dir, 'run.json'), 'utf8'), readFileSync(path.join(dir, 'events.jsonl'), 'utf8'), formatSummary(summary), JSON.stringify(summary)]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(KEY.slice(-10));
      }
      expect(readFileSync(path.join(dir, 'run.json'), 'utf8')).toContain(KEY_VAR);
    } finally {
      delete process.env[KEY_VAR];
      await flaky.close();
    }
  });

  it('sends gold answers only when the scenario asks by name, never to a server that merely claims to be serve-sim', async () => {
    const rec: RecordedRequest[] = [];
    const server = await startServeSim({ port: 0, timeScale: 3000, onRequest: (r) => rec.push(r) });
    try {
      // serve-sim says what it is in /models: owned_by "evochamber-sim", as any server could.
      const models = await (await fetch(`${server.url}/models`)).json() as { data: Array<{ owned_by: string }> };
      expect(models.data[0]!.owned_by).toBe('evochamber-sim');
      await runScenario(quickstartOver({ endpoints: [{ baseURL: server.url, model: 'sim', maxConcurrency: 4 }], simSideChannel: true }), { patch: { 'stream.tasks': 12 }, report: false, outDir: outDir() });
      type Hidden = { question: string; publicTests?: string[]; hidden: { answer: string; tests?: string[] } };
      const tasks = rec.filter((r) => r.path.endsWith('/chat/completions'))
        .map((r) => (JSON.parse(r.body) as Record<string, { task: Hidden } | undefined>)[SIDE_CHANNEL_FIELD]?.task)
        .filter((t): t is Hidden => t !== undefined);
      expect(tasks.length).toBeGreaterThan(0);
      // Distinctive hidden values: long enough not to occur by chance, and not also public (a
      // code task's public examples are among its tests).
      const hidden = [...new Set(tasks.flatMap((t) => [t.hidden.answer, ...(t.hidden.tests ?? [])]
        .filter((s) => s.length >= 12 && !t.question.includes(s) && !(t.publicTests ?? []).includes(s))))];
      expect(hidden.length).toBeGreaterThan(3);

      // The default: no side channel, whatever the server claims.
      rec.length = 0;
      const base = loadScenario(path.resolve('scenarios/quickstart.json'));
      const plain = withOverrides(base, { model: { backend: 'openai', endpoints: [{ baseURL: server.url, model: 'sim', maxConcurrency: 4 }], retries: 2, backoff: { baseMs: 20, maxMs: 200 } } } as never);
      expect((plain.scenario.model as { simSideChannel?: boolean }).simSideChannel).toBeUndefined();
      const { summary } = await runScenario(plain, { patch: { 'stream.tasks': 12 }, report: false, outDir: outDir() });
      expect(summary.tasks).toBe(12);
      expect(rec.length).toBeGreaterThan(0);
      const wire = rec.map((r) => `${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
      expect(wire).not.toContain(SIDE_CHANNEL_FIELD);
      expect(hidden.filter((h) => wire.includes(h))).toEqual([]);
      // Without the side channel the simulator cannot know the answers.
      expect(summary.accuracy).toBeLessThan(0.2);
    } finally {
      await server.close();
    }
  });
});
