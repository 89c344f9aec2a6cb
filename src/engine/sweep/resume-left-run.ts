import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { RunStore } from '../../store/run-store';
import { readRunLock } from '../../store/run-lock';
import { resumeRun, runScenario, type RunOptions, type RunResult } from '../run-scenario';
import type { LoadedScenario } from '../scenario';
import type { RunSummary } from '../summary';

/**
 * The sweep worker's `resume` hook: continue the run a dead worker left in `runDir`, so a retaken
 * job pays for nothing twice. BullMQ gives a job to another worker only after the first one's lock
 * expired, so a `run.lock` naming another host (which `resumeRun` cannot check) is that dead
 * worker's and is cleared; a lock on this host is checked by pid as usual. A directory with no
 * `run.json` (killed before its first write) starts over; a finished run is read back.
 */
export async function resumeLeftRun(loaded: LoadedScenario, runDir: string, opts: RunOptions): Promise<RunResult> {
  if (!existsSync(path.join(runDir, 'run.json'))) {
    rmSync(runDir, { recursive: true, force: true });
    return runScenario(loaded, opts);
  }
  const store = await RunStore.open(runDir);
  if (store.data.status === 'finished') return { summary: store.data.summary as unknown as RunSummary, runDir };
  const lock = readRunLock(runDir);
  if (lock && lock.host !== hostname()) rmSync(path.join(runDir, 'run.lock'), { force: true });
  return resumeRun(runDir, { report: false, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
}
