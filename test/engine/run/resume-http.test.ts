import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario, resumeRun, runScenario, type RunSummary } from '../../../src/index';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-resume-http-'));
const servers: ServeSim[] = [];
afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

function scenarioFor(sim: ServeSim, name: string): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({
    name: 'resume-http', seed: 2,
    stream: { order: 'shuffled', tasks: 12, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] },
    agents: { count: 4 }, engine: { inFlight: 4 },
    // Speculative voting cancels whichever member is slowest, which over HTTP is timing: the
    // killed-plus-resumed run and the reference would then differ in a call or two. (A resume
    // itself replays the journaled cancellations exactly.)
    structures: { speculative: false },
    model: { backend: 'openai', endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8 }], simSideChannel: true, retries: 2, backoff: { baseMs: 20, maxMs: 100 } },
  }));
  return file;
}

const journalLines = (runDir: string) => {
  try {
    return readFileSync(path.join(runDir, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

function cli(args: string[]) {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => { stdout += String(d); });
  p.stderr.on('data', (d) => { stderr += String(d); });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    p.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child: p, done };
}

const stable = (s: RunSummary) => JSON.stringify({ ...s, runDir: undefined, timing: undefined, reportPath: undefined, endpoints: undefined });

describe('resume over HTTP against serve-sim', () => {
  it('pays for no call twice: killed plus resumed asks serve-sim exactly as often as an uninterrupted run', async () => {
    // Latency at 1/40 of real time: calls take tens of milliseconds, so the kill finds some in flight.
    const [a, b] = await Promise.all([startServeSim({ port: 0, timeScale: 40 }), startServeSim({ port: 0, timeScale: 40 })]);
    servers.push(a, b);
    const reference = await runScenario(loadScenario(scenarioFor(a, 'a')), { report: false, outDir: path.join(dir, 'reference') });
    const uninterrupted = a.metrics.requests;
    expect(uninterrupted).toBe(reference.summary.tokens.total.calls);

    const runDir = path.join(dir, 'killed');
    const run = cli(['run', scenarioFor(b, 'b'), '--out', runDir, '--quiet', '--no-report']);
    let killedAt = -1;
    let chats = 0;
    // Kill when a new request arrives past the middle of the run, at a moment when every answer
    // serve-sim finished is already in the run's journal; then cut every open connection in the same
    // tick, so no answer leaves after the kill. Requests then in flight are the ones resume re-asks.
    b.server.on('request', (req) => {
      if (killedAt >= 0 || !req.url?.endsWith('/chat/completions')) return;
      if (++chats < uninterrupted / 2 || journalLines(runDir) !== b.metrics.requests) return;
      killedAt = b.metrics.requests;
      run.child.kill('SIGKILL');
      b.server.closeAllConnections();
    });
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killedAt).toBeGreaterThan(0);
    expect(killedAt).toBeLessThan(uninterrupted);

    // The resume runs in this process (the CLI's resume is the same call; the kill test covers it).
    const { summary } = await resumeRun(runDir, { report: false });
    console.log(`serve-sim requests: uninterrupted ${uninterrupted}; killed run ${killedAt} answered; resumed run ${b.metrics.requests - killedAt}; killed + resumed ${b.metrics.requests}`);
    expect(b.metrics.requests).toBe(uninterrupted);
    // The resumed process asked only for what the killed one had not received.
    expect(Object.values(summary.endpoints!)[0]!.requests).toBe(uninterrupted - killedAt);
    expect(stable(summary)).toBe(stable(reference.summary));
  }, 120_000);
});
