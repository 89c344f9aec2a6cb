import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { SIDE_CHANNEL_FIELD } from '../../../src/sim/served-side-channel';
import { startServeSim, type RecordedRequest, type ServeSim } from '../../../src/sim/server/serve-sim';
import { outDir, quickstartOver } from './e2e-helpers';

// What the scenario says about sampling is what the server receives: serve-sim records every
// request's raw body, and the test reads the fields back.
let sim: ServeSim;
const seen: RecordedRequest[] = [];
beforeAll(async () => { sim = await startServeSim({ port: 0, timeScale: 3000, onRequest: (r) => seen.push(r) }); });
afterAll(async () => { await sim.close(); });

describe('sampling over HTTP', () => {
  it('sends the scenario\'s temperature, top_k and chat_template_kwargs, the stage override, and a seed per request', async () => {
    const scenario = quickstartOver({
      endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8 }],
      sampling: { temperature: 0.6, top_k: 20, seed: 11 },
      extraBody: { chat_template_kwargs: { enable_thinking: false } },
      stages: { reflect: { sampling: { temperature: 0.2 } } },
    } as never);
    const { summary } = await runScenario(scenario, { tasks: 3, report: false, outDir: outDir() });
    expect(summary.tasks).toBe(3);
    const chats = seen.filter((r) => r.path === '/v1/chat/completions')
      .map((r) => ({ stage: r.headers['x-evochamber-stage'], key: r.headers['x-evochamber-seed-key'], body: JSON.parse(r.body) as Record<string, unknown> }));
    const solve = chats.filter((c) => c.stage === 'solve');
    const reflect = chats.filter((c) => c.stage === 'reflect');
    expect(solve.length).toBeGreaterThan(2);
    expect(reflect.length).toBeGreaterThan(0);
    for (const c of solve) expect(c.body).toMatchObject({ temperature: 0.6, top_k: 20, chat_template_kwargs: { enable_thinking: false } });
    for (const c of reflect) expect(c.body).toMatchObject({ temperature: 0.2, top_k: 20, chat_template_kwargs: { enable_thinking: false } });
    // Each call (seed key) its own seed, so voting's members differ; a retry repeats its call's seed.
    const byKey = new Map(chats.map((c) => [c.key, c.body.seed as number]));
    const seeds = [...byKey.values()];
    expect(byKey.size).toBeGreaterThan(5);
    expect(new Set(seeds).size).toBe(byKey.size);
    expect(seeds).not.toContain(11);
  });
});

describe('serve-sim --log-requests', () => {
  it('a spawned serve-sim logs each request\'s sampling and extra fields, never the prompt or gold answers', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-reqlog-'));
    const log = path.join(dir, 'requests.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve-sim', '--port', '0', '--time-scale', '2000', '--log-requests', log], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]!); });
        child.once('exit', (code) => reject(new Error(`serve-sim exited with ${code}`)));
      });
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-evochamber-stage': 'solve' },
        body: JSON.stringify({
          model: 'sim', messages: [{ role: 'user', content: 'secret prompt text' }], temperature: 0.6, top_k: 20,
          chat_template_kwargs: { enable_thinking: false }, [SIDE_CHANNEL_FIELD]: { task: { id: 't', niche: 'n', domain: 'math', difficulty: 1, hidden: { answer: 'GOLD-42', distractors: [] } }, spec: { id: 'n', keywords: [] } },
        }),
      });
      expect(res.status).toBe(200);
      const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual([{ path: '/v1/chat/completions', stage: 'solve', body: { model: 'sim', temperature: 0.6, top_k: 20, chat_template_kwargs: { enable_thinking: false } } }]);
      expect(readFileSync(log, 'utf8')).not.toMatch(/GOLD-42|secret prompt/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
