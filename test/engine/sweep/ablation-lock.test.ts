// A live ablation's directory is never replaced or resumed under it: the process running it holds
// `ablation.lock` (pid and host), and `--force` and `resume` refuse while that process lives.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ABLATION_LOCK, resumeAblation, runAblation } from '../../../src/engine/sweep/ablate';
import { loadScenario } from '../../../src/index';

describe('the ablation lock', () => {
  it('is held while the ablation runs and gone after; --force and resume refuse a directory a live process holds', async () => {
    const outDir = mkdtempSync(path.join(tmpdir(), 'evo-abl-lock-'));
    const quick = loadScenario(path.resolve('scenarios/quickstart.json'));
    const opts = { patch: { 'stream.tasks': 6 }, variants: ['single-agent'], seeds: 1, outDir };
    let heldDuring: unknown = null;
    await runAblation(quick, { ...opts, onRunProgress: () => { heldDuring ??= JSON.parse(readFileSync(path.join(outDir, ABLATION_LOCK), 'utf8')); } });
    expect(heldDuring).toMatchObject({ pid: process.pid, host: hostname() });
    expect(existsSync(path.join(outDir, ABLATION_LOCK))).toBe(false);
    const before = readFileSync(path.join(outDir, 'ablation.json'), 'utf8');

    // Another process on this host holds the lock, as a running `ablate` would.
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((r) => other.once('spawn', r));
    try {
      writeFileSync(path.join(outDir, ABLATION_LOCK), JSON.stringify({ pid: other.pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
      await expect(runAblation(quick, { ...opts, force: true })).rejects.toThrow(new RegExp(`in use by a running process \\(pid ${other.pid}`));
      await expect(resumeAblation(outDir)).rejects.toThrow(/in use by a running process/);
      // Nothing was removed or rewritten.
      expect(readFileSync(path.join(outDir, 'ablation.json'), 'utf8')).toBe(before);
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    // Its process gone, the lock is stale: --force takes the directory over.
    await runAblation(quick, { ...opts, force: true });
    expect(existsSync(path.join(outDir, ABLATION_LOCK))).toBe(false);
    expect(existsSync(path.join(outDir, 'ablation.json'))).toBe(true);
  }, 60_000);
});
