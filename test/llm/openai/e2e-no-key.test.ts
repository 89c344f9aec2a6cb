import { createServer, type Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { writeReport } from '../../../src/report/write-report';
import { outDir, quickstartOver } from './e2e-helpers';

const KEY = 'sk-evo-echo-0123456789abcdefKEYTAIL';
const KEY_ENV = 'EVO_ECHO_TEST_KEY';

/**
 * A hostile server: every reply (content, reasoning, and the error of every third request) repeats
 * the Authorization header it was sent, as a misconfigured proxy or a prompt-injected model might.
 */
function echoServer(): Promise<{ url: string; server: Server }> {
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const auth = String(req.headers.authorization ?? '');
      n++;
      if (n % 3 === 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `bad request from ${auth}`, type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: `c${n}`, object: 'chat.completion', created: 0, model: 'echo',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', reasoning_content: `I was called with ${auth}`, content: `Your header was ${auth}. {"lesson":"${auth}","strategy":"${auth}"} \\boxed{4}` } }],
        usage: { prompt_tokens: 20, completion_tokens: 20 },
      }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    resolve({ url: `http://127.0.0.1:${addr.port}/v1`, server });
  }));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('no key in any run file', () => {
  let echo: { url: string; server: Server };
  beforeAll(async () => {
    echo = await echoServer();
    process.env[KEY_ENV] = KEY;
  });
  afterAll(async () => {
    delete process.env[KEY_ENV];
    await new Promise((r) => echo.server.close(r));
  });

  it('a server that echoes the Authorization header leaves no key, nor a head or tail of it, in events, journal, run files or the report', async () => {
    const dir = outDir();
    const { summary } = await runScenario(quickstartOver({
      endpoints: [{ baseURL: echo.url, model: 'echo', maxConcurrency: 4, apiKeyEnv: KEY_ENV }], simSideChannel: false, retries: 1,
    }), { patch: { 'stream.tasks': 6, 'engine.inFlight': 2 }, report: false, outDir: dir });
    expect(summary.tasks).toBe(6);
    const reportDir = mkdtempSync(path.join(tmpdir(), 'evo-report-'));
    await writeReport(dir, { outDir: reportDir });
    const files = [...filesUnder(dir), ...filesUnder(reportDir)];
    expect(files.some((f) => f.endsWith('events.jsonl'))).toBe(true);
    expect(files.some((f) => f.endsWith('journal.jsonl'))).toBe(true);
    // The server's echo did reach the run: it is there, masked.
    expect(readFileSync(path.join(dir, 'events.jsonl'), 'utf8')).toContain('Bearer ***');
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const piece of [KEY, KEY.slice(0, 8), KEY.slice(-8), KEY.slice(-6)]) {
        expect(text.includes(piece), `${path.basename(f)} holds ${piece}`).toBe(false);
      }
    }
  });
});
