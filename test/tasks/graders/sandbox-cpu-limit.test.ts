/**
 * The candidate's time limit is CPU time, so a busy machine cannot turn a correct candidate into
 * a timeout (same scenario + seed -> same summary). Wall time is only a backstop
 * (`wallFactor` x `timeoutMs`) for candidates that sleep or block.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createSandboxPool, type SandboxOptions, type SandboxResult } from '../../../src/tasks/graders';
import type { ProbeCall } from '../../../src/tasks/graders/test-plan';

/** A probe: one call of the candidate's `fn` with tagged plain arguments. */
const call = (fn: string, ...args: unknown[]): ProbeCall => ({ fn, args, kwargs: [], text: `${fn}(...)` });

/** Burns `seconds` of its own CPU time (machine speed does not matter), then returns 1. */
const BURN = 'import time\ndef burn(seconds):\n    t0 = time.process_time()\n    while time.process_time() - t0 < seconds:\n        pass\n    return 1\n';

async function runOnce(opts: SandboxOptions, job: Parameters<ReturnType<typeof createSandboxPool>['run']>[0]): Promise<SandboxResult> {
  const pool = createSandboxPool({ workers: 1, ...opts });
  try {
    return await pool.run(job);
  } finally {
    await pool.close();
  }
}

/**
 * Busy loops that compete with the candidate for every core. Each leads its own session, so
 * the kernel's autogroup scheduling cannot give the candidate (which has its own session) half
 * the machine.
 */
function loadMachine(): ChildProcess[] {
  const count = 4 * Math.min(availableParallelism(), 8);
  return Array.from({ length: count }, () => {
    const p = spawn('sh', ['-c', 'while :; do :; done'], { detached: true, stdio: 'ignore' });
    p.unref();
    return p;
  });
}

function unload(busy: readonly ChildProcess[]): void {
  for (const p of busy) {
    try {
      process.kill(-p.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

describe('code sandbox: the time limit is CPU time', () => {
  it('passes a correct candidate on a loaded machine although its wall time exceeds timeoutMs', async () => {
    // 0.5 s of CPU per phase against a 1000 ms budget; with four busy loops per core the same
    // work takes several seconds of wall time, so a wall-clock limit of 1000 ms would cut it.
    const busy = loadMachine();
    try {
      const r = await runOnce({ timeoutMs: 1000 }, { code: BURN, probes: [call('burn', ['float', '0.5'])], scripts: ['assert burn(0.5) == 1'] });
      expect({ timedOut: r.timedOut, exit: r.exit, failure: r.failure, violation: r.violation, loadError: r.loadError }).toEqual({
        timedOut: false, exit: null, failure: null, violation: null, loadError: null,
      });
      expect(r.probes[0]).toMatchObject({ value: ['int', 1n] });
      expect(r.scripts[0]?.passed).toBe(true);
    } finally {
      unload(busy);
    }
  });

  it('does not count a short sleep against the budget', async () => {
    const r = await runOnce({ timeoutMs: 300 }, { code: 'import time\ndef nap():\n    time.sleep(0.6)\n    return 1', probes: [call('nap')] });
    expect({ timedOut: r.timedOut, failure: r.failure }).toEqual({ timedOut: false, failure: null });
    expect(r.probes[0]).toMatchObject({ value: ['int', 1n] });
  });

  it('cuts a CPU-bound infinite loop by its CPU time, in both phases, long before the wall backstop', async () => {
    // The backstop is 1000 x 400 ms: only the CPU measurement can end these within the test's time.
    const opts = { timeoutMs: 400, wallFactor: 1000 };
    const probe = await runOnce(opts, { code: 'def spin():\n    while True:\n        pass', probes: [call('spin')] });
    expect({ timedOut: probe.timedOut, failure: probe.failure, probes: probe.probes }).toEqual({ timedOut: true, failure: null, probes: [null] });
    const script = await runOnce(opts, { code: 'def spin():\n    while True:\n        pass', scripts: ['spin()'] });
    expect({ timedOut: script.timedOut, failure: script.failure, passed: script.scripts[0]?.passed }).toEqual({ timedOut: true, failure: null, passed: false });
  });

  it('counts the CPU time of every thread of the candidate', async () => {
    // The main thread sleeps (no CPU); a background thread spins. Only its CPU time can end the job early.
    const code = 'import threading, time\ndef spin():\n    while True:\n        pass\ndef add(a, b):\n    threading.Thread(target=spin, daemon=True).start()\n    time.sleep(600)\n    return a + b';
    const r = await runOnce({ timeoutMs: 400, wallFactor: 1000 }, { code, probes: [call('add', ['int', '1'], ['int', '2'])] });
    expect({ timedOut: r.timedOut, failure: r.failure }).toEqual({ timedOut: true, failure: null });
  });

  it('cuts a candidate that sleeps at the wall backstop, as a timeout of the candidate', async () => {
    const r = await runOnce({ timeoutMs: 300, wallFactor: 4 }, { code: 'import time\ndef add(a, b):\n    time.sleep(600)\n    return a + b', probes: [call('add', ['int', '1'], ['int', '2'])] });
    // failure null: the worker cut it and answered; the Node-side stuck-worker deadline did not fire.
    expect({ timedOut: r.timedOut, failure: r.failure, exit: r.exit, probes: r.probes }).toEqual({ timedOut: true, failure: null, exit: null, probes: [null] });
  });
});
