import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadScenario, resumeRun, runScenario } from '../../src/index';
import { runState, RunStore } from '../../src/store/run-store';
import { main } from '../../src/cli/main';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-cli-runs-'));
const servers: ServeSim[] = [];
afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

// QA niches only: no sandbox and no mathjs in the child processes.
const scenarioFile = path.join(dir, 'qa.json');
writeFileSync(scenarioFile, JSON.stringify({ name: 'qa', seed: 4, stream: { order: 'shuffled', tasks: 40, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } }));

function cli(args: string[], onStart?: (pid: number) => void) {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  onStart?.(p.pid!);
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => { stdout += String(d); });
  p.stderr.on('data', (d) => { stderr += String(d); });
  return new Promise<{ code: number | null; stdout: string; stderr: string[] }>((resolve) => {
    p.on('exit', (code) => resolve({ code, stdout, stderr: stderr.split('\n').filter((l) => l && !/ExperimentalWarning|--trace-warnings/.test(l)) }));
  });
}

/**
 * Run the CLI's `main` in this process (argument parsing, error lines, exit code: everything but
 * the process itself), capturing what it prints. Child processes are kept for what needs one (signals).
 */
async function mainCapturing(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stderr = '';
  let stdout = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr += String(chunk); return true; });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { stdout += String(chunk); return true; });
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
});

describe('evochamber run: run directories, failures and exit codes', () => {
  it('refuses an --out that holds a run with one line suggesting resume; --force replaces it (exit 0)', async () => {
    const out = path.join(dir, 'taken');
    await runScenario(loadScenario(scenarioFile), { tasks: 4, report: false, outDir: out });
    const refused = await mainCapturing(['run', scenarioFile, '--tasks', '4', '--out', out, '--quiet', '--no-report']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`evochamber: error: ${out} already holds a run (finished): continue it with "evochamber resume ${out}", or pick a new --out (--force replaces it)\n`);
    const forced = await mainCapturing(['run', scenarioFile, '--tasks', '6', '--out', out, '--quiet', '--no-report', '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout.trim().split('\n').pop()!).tasks).toBe(6);
    const events = readFileSync(path.join(out, 'events.jsonl'), 'utf8');
    expect(events.match(/"type":"run\.started"/g)).toHaveLength(1);
  }, 60_000);

  it('fails fast with one line and exit 1 on an address nothing listens on, even with --model, writing nothing', async () => {
    const out = path.join(dir, 'wrong-address');
    const port = await freePort();
    const r = await mainCapturing(['run', scenarioFile, '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'sim', '--tasks', '1', '--out', out, '--quiet', '--no-report']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^evochamber: error: cannot reach the endpoint 127\\.0\\.0\\.1:${port}/v1 \\(GET /models: `));
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('exits 3 when tasks failed (every call rate-limited, no retries)', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 300, faults: '429=1' });
    servers.push(sim);
    const r = await mainCapturing(['run', scenarioFile, '--base-url', sim.url, '--retries', '0', '--tasks', '2', '--out', path.join(dir, 'failing'), '--quiet', '--no-report', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!).failures).toBe(2);
  }, 60_000);

  it('stops cleanly on SIGINT: exit 4, run.interrupted, status interrupted; resume finishes it', async () => {
    const out = path.join(dir, 'interrupted');
    let pid = 0;
    const running = cli(['run', scenarioFile, '--out', out, '--quiet', '--no-report'], (p) => { pid = p; });
    const committed = () => { try { return (readFileSync(path.join(out, 'events.jsonl'), 'utf8').match(/"type":"task\.done"/g) ?? []).length; } catch { return 0; } };
    let exited = false;
    void running.then(() => { exited = true; });
    while (!exited && committed() < 2) await new Promise((r) => setTimeout(r, 5));
    process.kill(pid, 'SIGINT');
    const r = await running;
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(`continue with: evochamber resume ${out}`);
    const store = await RunStore.open(out);
    expect(store.data.status).toBe('interrupted');
    expect(runState(out, store.data.status).state).toBe('interrupted');
    expect(existsSync(path.join(out, 'run.lock'))).toBe(false);
    expect(readFileSync(path.join(out, 'events.jsonl'), 'utf8')).toContain('"type":"run.interrupted"');
    const done = await resumeRun(out, { report: false });
    expect(done.summary.tasks).toBe(40);
    expect((await RunStore.open(out)).data.status).toBe('finished');
  }, 60_000);
});

describe('a second Ctrl-C', () => {
  it('exits at once with code 4 while a task is still in flight, leaving the run interrupted and resumable', async () => {
    // Real-time latency: each call takes a second or more, so the task in flight outlasts both signals.
    const sim = await startServeSim({ port: 0 });
    servers.push(sim);
    const out = path.join(dir, 'abandoned');
    let pid = 0;
    let chats = 0;
    sim.server.on('request', (req) => { if (req.url?.endsWith('/chat/completions')) chats++; });
    const running = cli(['run', scenarioFile, '--base-url', sim.url, '--tasks', '2', '--out', out, '--quiet', '--no-report'], (p) => { pid = p; });
    let exited = false;
    void running.then(() => { exited = true; });
    while (!exited && chats === 0) await new Promise((r) => setTimeout(r, 10));
    process.kill(pid, 'SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid, 'SIGINT');
    const r = await running;
    expect(r.code).toBe(4);
    const store = await RunStore.open(out);
    expect(store.data.status).toBe('interrupted');
    expect(store.data.interruptReason).toBe('abandoned');
    expect(runState(out, store.data.status).state).toBe('interrupted');
    expect(existsSync(path.join(out, 'run.lock'))).toBe(false);
    const events = readFileSync(path.join(out, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ type: 'run.interrupted', reason: 'abandoned' });
    expect(events.some((e) => e.type === 'task.done')).toBe(false);
  }, 60_000);
});

describe('credentials in a base URL', () => {
  const KEY = 'sk-leak-5f1e9a7c3b2d4e6f';

  it('rejects --base-url with a key in it, in one line that does not hold the key', async () => {
    for (const url of [`http://user:${KEY}@127.0.0.1:9/v1`, `http://127.0.0.1:9/v1?api_key=${KEY}`]) {
      const r = await mainCapturing(['run', scenarioFile, '--base-url', url, '--no-report', '--out', path.join(dir, 'key-flag')]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/--base-url http:\/\/127\.0\.0\.1:9\/v1 (holds credentials|has a query string)/);
      expect(r.stderr).not.toContain(KEY);
    }
    expect(existsSync(path.join(dir, 'key-flag'))).toBe(false);
  });

  it('rejects a scenario whose endpoint URL holds a key, in one line that does not hold the key, writing nothing', async () => {
    const file = path.join(dir, 'key.json');
    writeFileSync(file, JSON.stringify({
      name: 'key', stream: { tasks: 2, niches: [{ id: 'people-qa' }] },
      model: { backend: 'openai', endpoints: [{ baseURL: `https://me:${KEY}@api.example.com/v1`, model: 'm' }] },
    }));
    const before = readdirSync(dir).length;
    const r = await mainCapturing(['run', file, '--no-report', '--out', path.join(dir, 'key-file')]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([`evochamber: error: ${file}: model.endpoints[0].baseURL: https://api.example.com/v1 holds credentials (user:key@); keys are never stored in a run: put the key in an environment variable and name it in "apiKeyEnv" (--api-key-env)`]);
    expect(r.stderr).not.toContain(KEY);
    expect(readdirSync(dir).length).toBe(before);
  });
});
