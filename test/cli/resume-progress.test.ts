/**
 * A resume says where it is: its replay shows off a terminal at once, run.json and inspect never
 * count fewer committed tasks than the log holds when the replay is stopped, and a lock whose owner
 * has exited (a zombie its parent has not reaped) does not keep the run "in use".
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasExited, lockLiveness } from '../../src/store/run-lock';
import { formatEta } from '../../src/cli/progress';

const tsx = ['--import', 'tsx', 'src/cli/main.ts'];
const committedInLog = (dir: string) => (existsSync(path.join(dir, 'events.jsonl'))
  ? readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"task.done"')).length : 0);

describe('resume that says where it is', () => {
  it('shows its replay off a terminal from the start; stopped in the replay, run.json and inspect keep the log\'s count', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'evo-resume-')), 'r');
    const first = spawn(process.execPath, [...tsx, 'run', 'quickstart', '--tasks', '100000', '--no-report', '--quiet', '--out', dir], { stdio: 'ignore' });
    while (committedInLog(dir) < 200) await new Promise((r) => setTimeout(r, 100));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const held = committedInLog(dir);

    const resume = spawn(process.execPath, [...tsx, 'resume', dir, '--no-report'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    resume.stdout.on('data', (d) => { stdout += String(d); });
    const replaying = new Promise<void>((resolve) => resume.stderr.on('data', (d) => { stderr += String(d); if (stderr.includes('replaying the log')) resolve(); }));
    await replaying;
    resume.kill('SIGTERM');
    const code = await new Promise((r) => resume.once('exit', r));
    expect(code).toBe(4);
    expect(stderr).toContain(`resume: replaying the log: 0/${held} logged tasks re-checked (of 100000)`);
    expect(stdout).toMatch(new RegExp(`interrupted while replaying \\(\\d+ of the ${held} logged tasks re-checked\\); the log holds ${held} committed tasks`));
    const inspect = JSON.parse(spawnSync(process.execPath, [...tsx, 'inspect', dir, '--json'], { encoding: 'utf8' }).stdout) as { state: string; progress: { committed: number } };
    expect(inspect.state).toBe('interrupted');
    expect(inspect.progress.committed).toBe(committedInLog(dir));
    expect(inspect.progress.committed).toBeGreaterThanOrEqual(held);
  }, 60_000);

  it('a lock held by a zombie (exited, not reaped) is dead; a running process\'s is alive', async () => {
    // sh forks a child that exits shortly, then becomes `sleep`, which never reaps it: a zombie until sleep ends.
    const sh = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 8'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise<string>((resolve) => sh.stdout.once('data', (d) => resolve(String(d).trim()))));
    while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')) await new Promise((r) => setTimeout(r, 20));
    expect(hasExited(pid)).toBe(true);
    expect(lockLiveness({ pid, host: hostname(), startedAt: '' })).toBe('dead');
    expect(lockLiveness({ pid: sh.pid!, host: hostname(), startedAt: '' })).toBe('alive');
    sh.kill();
  });

  it('an ETA reads as a duration, however long the stream', () => {
    expect(formatEta(42)).toBe('42s');
    expect(formatEta(725)).toBe('12m05s');
    expect(formatEta(5 * 3600 + 180)).toBe('5h03m');
    expect(formatEta(1e9 / 30)).toBe('386d');
    expect(formatEta(1e9 / 3)).toBe('>999d');
    expect(formatEta(Infinity)).toBe('-');
  });
});
