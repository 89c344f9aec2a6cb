import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng, loadScenario, runScenario, type RunSummary } from '../../../src/index';
import { runState, RunStore } from '../../../src/store/run-store';
import { committedTasks, sleep } from '../../fixtures/run-dir';

// A short stream that still exercises every level: teams, CoDream, and lifecycle windows every 6 tasks.
const TASKS = 24;
// Each kill costs a CLI process start (about 2 s of CPU under tsx); six per setting still land in
// every phase (during the resume's replay, mid-task, mid-write) across the two settings.
const KILLS_PER_SETTING = 6;
const dir = mkdtempSync(path.join(tmpdir(), 'evo-kill-'));
const scenarioFile = path.join(dir, 'kill.json');
writeFileSync(scenarioFile, JSON.stringify({
  name: 'kill', seed: 5,
  // QA niches only: a math niche loads mathjs in every process, and this test starts twenty-odd.
  stream: { order: 'shuffled', tasks: TASKS, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] },
  agents: { count: 4 },
  population: { lifecycle: { every: 6 } },
}));

/** The summary without what legitimately differs between two runs: where they live and how long they took. */
const stable = (s: RunSummary | Record<string, unknown>) => JSON.stringify({ ...s, runDir: undefined, timing: undefined, reportPath: undefined });

interface Child { done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>; pid: number; kill(): void }

function cli(args: string[]): Child {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  p.stdout.on('data', (d) => { stdout += String(d); });
  p.stderr.on('data', () => {});
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) => {
    p.on('exit', (code, signal) => resolve({ code, signal, stdout }));
  });
  return { done, pid: p.pid!, kill: () => p.kill('SIGKILL') };
}

const lockedBy = (runDir: string, pid: number) => {
  try {
    return JSON.parse(readFileSync(path.join(runDir, 'run.lock'), 'utf8')).pid === pid;
  } catch {
    return false;
  }
};

/**
 * Start (or resume) the run, and once its process holds the lock, SIGKILL it when the log holds
 * `target` committed tasks plus a random few milliseconds — during the replay of a resume, mid-task,
 * or mid-write. Resolves whether the kill landed (false: the run finished first).
 */
async function runAndKill(runDir: string, inFlight: number, target: number, extraMs: number): Promise<{ killed: boolean; stdout: string }> {
  const args = existsSync(path.join(runDir, 'run.json'))
    ? ['resume', runDir, '--quiet', '--no-report', '--json']
    : ['run', scenarioFile, '--in-flight', String(inFlight), '--out', runDir, '--quiet', '--no-report', '--json'];
  const child = cli(args);
  let exited = false;
  void child.done.then(() => { exited = true; });
  while (!exited && !(lockedBy(runDir, child.pid) && committedTasks(runDir) >= target)) await sleep(3);
  if (!exited) {
    await sleep(extraMs);
    child.kill();
  }
  const r = await child.done;
  return { killed: r.signal === 'SIGKILL', stdout: r.stdout };
}

// The two settings run side by side: each process mostly waits on its own startup.
describe.concurrent('a run killed with SIGKILL at random points and resumed', () => {
  for (const inFlight of [1, 8]) {
    it(`ends with the uninterrupted run's summary, byte for byte (in flight ${inFlight}, ${KILLS_PER_SETTING} kills)`, async () => {
      const reference = await runScenario(loadScenario(scenarioFile), { patch: { 'engine.inFlight': inFlight }, report: false, outDir: path.join(dir, `ref-${inFlight}`) });
      const rng = createRng(`kill-test/${inFlight}`);
      let kills = 0;
      let chain = 0;
      const finals: string[] = [];
      while (kills < KILLS_PER_SETTING) {
        const runDir = path.join(dir, `run-${inFlight}-${chain++}`);
        let finished = false;
        while (kills < KILLS_PER_SETTING) {
          // Targets from "already committed" (a kill during the resume's replay) to the stream's end.
          const done = committedTasks(runDir);
          const r = await runAndKill(runDir, inFlight, done + rng.int(TASKS - done), rng.int(25));
          const store = await RunStore.open(runDir);
          if (r.killed && store.data.status !== 'finished') {
            kills++;
            // inspect tells a dead run from a live one.
            expect(runState(runDir, store.data.status).state).toBe('crashed');
            continue;
          }
          // Finished (a kill that landed between the last write and the exit changes nothing): its summary is on disk.
          finals.push(r.killed ? JSON.stringify(store.data.summary) : r.stdout.trim().split('\n').pop()!);
          finished = true;
          break;
        }
        if (!finished) {
          const r = await cli(['resume', runDir, '--quiet', '--no-report', '--json']).done;
          expect(r.code).toBe(0);
          finals.push(r.stdout.trim().split('\n').pop()!);
        }
        // However often it was killed, the log holds each task once, numbered without gaps.
        const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
        expect(events.filter((e) => e.type === 'task.done')).toHaveLength(TASKS);
        expect(events.filter((e) => e.type === 'run.finished')).toHaveLength(1);
      }
      console.log(`in flight ${inFlight}: ${kills} SIGKILLs over ${chain} run${chain === 1 ? '' : 's'}, ${finals.length} final summaries compared`);
      expect(finals.length).toBeGreaterThan(0);
      for (const f of finals) expect(stable(JSON.parse(f))).toBe(stable(reference.summary));
    }, 180_000);
  }
});
