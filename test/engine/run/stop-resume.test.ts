import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, resumeRun, runScenario } from '../../../src/index';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-stop-resume-'));
const stable = (s: object) => JSON.stringify({ ...s, runDir: '', timing: null, reportPath: '' });

/**
 * A graceful stop lets the tasks in flight commit and starts none after them, so the stopped run
 * is a different schedule from the uninterrupted one (the tasks after it start later, from a newer
 * pool). What must hold: resume re-executes the log without diverging (it starts tasks only where
 * the log did), finishes the stream, and the stop-then-resume result is itself deterministic.
 */
describe('a graceful stop with tasks in flight', () => {
  it('lets them commit, starts none after, and resumes without diverging, deterministically', async () => {
    const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
    const opts = { tasks: 24, inFlight: 4, report: false } as const;
    const stopAndResume = async () => {
      const dir = out();
      const stop = new AbortController();
      const first = await runScenario(quickstart, { ...opts, outDir: dir, stop: stop.signal, onProgress: (p) => { if (p.done === 9) stop.abort(); } });
      expect(first.interrupted).toBe(true);
      // The tasks in flight at the stop committed: more than the nine before it, fewer than all.
      expect(first.summary.tasks).toBeGreaterThan(9);
      expect(first.summary.tasks).toBeLessThan(24);
      return resumeRun(dir, { report: false });
    };
    const a = await stopAndResume();
    const b = await stopAndResume();
    expect(a.summary.tasks).toBe(24);
    expect(stable(a.summary)).toBe(stable(b.summary));
  }, 120_000);
});
