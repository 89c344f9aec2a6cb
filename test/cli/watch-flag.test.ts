import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { rawGet, readSse } from '../report/live/sse-client';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-watch-flag-'));
// QA niches only: no sandbox and no mathjs in the child processes.
const scenario = path.join(dir, 'qa.json');
writeFileSync(scenario, JSON.stringify({ name: 'qa', seed: 4, stream: { order: 'shuffled', tasks: 40, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } }));

describe('run --watch', () => {
  it('serves the run from a child process while it goes, and the server ends with the run\'s process, even killed', async () => {
    const run = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', scenario, '--tasks', '300', '--out', path.join(dir, 'run'), '--quiet', '--no-report', '--watch=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((resolve) => run.on('exit', resolve));
    let stderr = '';
    run.stderr.on('data', (d) => { stderr += String(d); });
    await vi.waitFor(() => expect(stderr).toMatch(/watch: http:\/\/127\.0\.0\.1:\d+\//), { timeout: 60_000, interval: 100 });
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(stderr)![1]);
    // Two task.done events pushed as the run commits them.
    const msgs = await readSse(port, '/events', (m) => m.filter((x) => x.event === 'ev' && x.data.includes('"type":"task.done"')).length >= 2);
    const ids = msgs.filter((m) => m.event === 'ev').map((m) => Number(m.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id, i) => i === 0 || id === ids[i - 1]! + 1)).toBe(true);
    run.kill('SIGKILL');
    await exited;
    await vi.waitFor(async () => { await expect(rawGet(port, '/')).rejects.toThrow(/ECONNREFUSED/); }, { timeout: 30_000, interval: 200 });
  }, 120_000);
});
