import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// Fault injection: a lifecycle window that, after its own work, spawns an agent whose id is taken,
// sent around sendToSupervisor's check: the supervisor refuses it by failing (its failed state).
vi.mock('../../src/population/lifecycle/lifecycle-window', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/population/lifecycle/lifecycle-window')>();
  return {
    ...real,
    runLifecycleWindow: async (w: Parameters<typeof real.runLifecycleWindow>[0]) => {
      const next = await real.runLifecycleWindow(w);
      w.supervisor.send({ type: 'SPAWN_AGENT', input: { id: 'agent-01', persona: 'p', dim: 256, eta: 0.1, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
      return next;
    },
  };
});

const { loadScenario } = await import('../../src/engine/scenario/scenario');
const { runScenario } = await import('../../src/engine/run/run-scenario');
const { simPlugin } = await import('../../src/sim/sim-plugin');

describe('a duplicate SPAWN_AGENT fails the run', () => {
  it('runScenario rejects, logs run.failed and marks run.json failed, instead of crashing later with the run left running', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'evo-dup-spawn-')), 'run');
    await expect(runScenario(loadScenario('scenarios/quickstart.json'), { tasks: 3, outDir: dir, plugins: [simPlugin] }))
      .rejects.toThrow('population supervisor failed: spawn: agent id already in the pool: agent-01');
    const ev = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ev.at(-1)).toMatchObject({ type: 'run.failed', error: 'population supervisor failed: spawn: agent id already in the pool: agent-01' });
    // The window's group was never made durable; the three tasks before it were.
    expect(ev.filter((e) => e.type === 'task.done')).toHaveLength(3);
    expect(ev.some((e) => e.type === 'lifecycle.window')).toBe(false);
    const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/agent id already in the pool/);
  });
});
