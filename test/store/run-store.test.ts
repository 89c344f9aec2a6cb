import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore, RUN_SCHEMA_VERSION } from '../../src/store/run-store';

const v1Config = {
  name: 'q', variant: 'no-codream', seed: 3, stream: { tasks: 12, niches: [{ id: 'algebra' }] },
  engine: { inFlight: 4, staleness: { policy: 'guarded', tau: 2 }, evolveTiming: 'lag' }, model: { backend: 'sim' }, memory: { c0: 0.5 },
};

describe('run.json versions', () => {
  it('writes the run\'s patch with the current version', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-store-'));
    await RunStore.create(dir, { id: 'r', createdAt: 'now', config: {}, patch: { seed: 2 } });
    const file = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    expect(file).toMatchObject({ schemaVersion: RUN_SCHEMA_VERSION, patch: { seed: 2 } });
  });

  it('reads a version-1 run.json, its patch the settings its reproduce command named, taken from its config', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-store-'));
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ schemaVersion: 1, id: 'r', createdAt: 'now', status: 'finished', config: v1Config, summary: null, error: null }));
    const store = await RunStore.open(dir);
    expect(store.data.schemaVersion).toBe(RUN_SCHEMA_VERSION);
    expect(store.data.patch).toEqual({
      variant: 'no-codream', seed: 3, 'stream.tasks': 12, 'engine.inFlight': 4, 'engine.staleness': { policy: 'guarded', tau: 2 }, 'engine.evolveTiming': 'lag', model: { backend: 'sim' },
    });
  });

  it('refuses another version, naming the file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-store-'));
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ schemaVersion: 9, id: 'r', createdAt: 'now', status: 'finished', config: {}, summary: null, error: null }));
    await expect(RunStore.open(dir)).rejects.toThrow(/run\.json: schemaVersion 9 is not supported/);
  });
});
