import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Fault injection: every reflection's archive keys come back 8 long instead of the embedder's 256.
vi.mock('../../src/individual/reflection', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/individual/reflection')>();
  return {
    ...real,
    reflect: async (r: Parameters<typeof real.reflect>[0]) => {
      const out = await real.reflect(r);
      return { ...out, entries: out.entries.map((e) => ({ ...e, key: e.key.slice(0, 8) })) };
    },
  };
});

const { loadScenario } = await import('../../src/engine/scenario/scenario');
const { runScenario } = await import('../../src/engine/run/run-scenario');
const { simPlugin } = await import('../../src/sim/sim-plugin');
const { main } = await import('../../src/cli/main');
const { EXIT } = await import('../../src/cli/exit-codes');

const out = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-actor-err-')), 'run');
const events = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const runJson = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));

afterEach(() => { vi.restoreAllMocks(); });

describe('an archive key of the wrong dimension fails the run', () => {
  it('runScenario rejects, logs run.failed last and marks run.json failed; nothing of the bad update and no later task is committed', async () => {
    const dir = out();
    await expect(runScenario(loadScenario('scenarios/quickstart.json'), { tasks: 4, outDir: dir, plugins: [simPlugin] }))
      .rejects.toThrow(/population supervisor refused the event: update for agent-\d+ \(task [^)]+\): entry .* has a key of length 8, its archive's dimension is 256/);
    const ev = events(dir);
    expect(ev.at(-1)).toMatchObject({ type: 'run.failed' });
    expect(ev.at(-1).error).toMatch(/key of length 8/);
    // The first task's grade was committed; its evolve stage (the lessons with bad keys) was not, and no task started after it.
    expect(ev.filter((e) => e.type === 'task.done')).toHaveLength(1);
    expect(ev.filter((e) => e.type === 'task.started')).toHaveLength(1);
    expect(ev.filter((e) => e.type === 'evolve.applied' || e.type === 'lesson.added')).toHaveLength(0);
    const run = runJson(dir);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/key of length 8/);
  });

  it('the CLI exits 1 with one error line', async () => {
    const dir = out();
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true; });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = await main(['run', 'scenarios/quickstart.json', '--tasks', '3', '--quiet', '--no-report', '--out', dir]);
    expect(code).toBe(EXIT.error);
    const lines = stderr.join('').split('\n').filter((l) => l.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^evochamber: error: population supervisor refused the event: .*key of length 8/);
    expect(runJson(dir).status).toBe('failed');
  });
});
