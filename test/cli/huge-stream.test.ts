/**
 * A stream of a billion tasks, in a real child process: the stream is drawn lazily, so the run
 * starts at once, SIGTERM stops it (exit 4, run.json interrupted with every committed task kept),
 * and `resume` continues it and can be stopped the same way. Wall-clock figures are printed, never
 * asserted (the stop latency is measured in the report of issue 31).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedTasks, sleep } from '../fixtures/run-dir';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-huge-'));
const scenarioFile = path.join(dir, 'huge.json');
// QA niches only: nothing heavy to load (no mathjs, no sandbox), so the child starts fast.
writeFileSync(scenarioFile, JSON.stringify({ name: 'huge', seed: 3, stream: { order: 'shuffled', tasks: 10, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] }, agents: { count: 3 } }));

interface Exit { code: number | null; signal: NodeJS.Signals | null; stderr: string }

function cli(args: string[]): { pid: number; done: Promise<Exit>; term(): number } {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += String(d); });
  const done = new Promise<Exit>((resolve) => p.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { pid: p.pid!, done, term: () => { p.kill('SIGTERM'); return Date.now(); } };
}

const runFile = (runDir: string) => JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { status: string; progress?: { committed: number; total: number } };

/** Wait until `ok()` holds (polling), or fail after `ms`. */
async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(50)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

describe('a stream of 10^9 tasks', () => {
  it('runs, stops on SIGTERM 2 s in with the run resumable, and resumes', async () => {
    const runDir = path.join(dir, 'run');
    const run = cli(['run', scenarioFile, '--tasks', '1e9', '--out', runDir, '--no-report', '--quiet']);
    await until(() => committedTasks(runDir) > 0, 60_000, 'the first committed task');
    await sleep(2000);
    const sent = run.term();
    const exit = await run.done;
    console.log(`run --tasks 1e9: exited ${Date.now() - sent} ms after SIGTERM`);
    expect(exit.code, exit.stderr).toBe(4);
    const stopped = runFile(runDir);
    expect(stopped.status).toBe('interrupted');
    expect(stopped.progress).toEqual({ committed: committedTasks(runDir), total: 1e9 });
    expect(exit.stderr).toMatch(/SIGTERM: stopping/);

    const before = committedTasks(runDir);
    const resume = cli(['resume', runDir, '--no-report', '--quiet']);
    await until(() => committedTasks(runDir) > before, 60_000, 'a task committed by the resume');
    const sentAgain = resume.term();
    const again = await resume.done;
    console.log(`resume of a 1e9 stream: exited ${Date.now() - sentAgain} ms after SIGTERM`);
    expect(again.code, again.stderr).toBe(4);
    expect(runFile(runDir).status).toBe('interrupted');
    expect(committedTasks(runDir)).toBeGreaterThan(before);
  }, 150_000);
});
