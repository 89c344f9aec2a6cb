/**
 * Verdicts on disk: a second process (here, the process's memory cache cleared) gets a verdict
 * from the directory without the sandbox; what is read back is checked against its key and shape;
 * concurrent writers of one directory leave whole files; the directory stays within its bound.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeGrader, VERDICTS } from '../../../src/tasks/graders/code-grader';
import { DiskVerdicts, openDiskVerdicts, verdictDirFor } from '../../../src/tasks/graders/verdict-disk';
import { taskOf } from './completions.fixtures';

const dirs: string[] = [];
const fresh = () => { const d = mkdtempSync(path.join(tmpdir(), 'evo-verdicts-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const files = (dir: string) => readdirSync(dir).flatMap((s) => readdirSync(path.join(dir, s)).map((f) => path.join(dir, s, f)));

describe('verdicts on disk', () => {
  it('a later grader gets the verdict from disk, without running the candidate again', async () => {
    const dir = fresh();
    const task = taskOf('code', '', { tests: ['assert add(1, 2) == 3', 'assert add(2, 2) == 5'] });
    const code = '```python\ndef add(a, b):\n    return a + b\n```';
    const first = createCodeGrader({ workers: 1, verdictDir: dir, allowUnsandboxed: true });
    const g1 = await first.grade(code, task);
    await first.close();
    expect(g1.correct).toBe(false);
    const [file] = files(dir);
    const rec = JSON.parse(readFileSync(file!, 'utf8')) as { key: string; verdict: string };
    expect(JSON.parse(rec.verdict)[0]).toBe('10');
    // The same key, another process (the memory tier emptied): the disk answers, not the sandbox.
    // To tell the two apart, the file now says both tests passed, which no sandbox run would.
    writeFileSync(file!, JSON.stringify({ key: rec.key, verdict: JSON.stringify(['11', 0, 0, null, '2/2 tests passed', null]) }));
    VERDICTS.clear();
    const disk = openDiskVerdicts(dir);
    const hits = disk.hits;
    const second = createCodeGrader({ workers: 1, verdictDir: dir, allowUnsandboxed: true });
    const g2 = await second.grade(code, task);
    await second.close();
    expect(disk.hits).toBe(hits + 1);
    expect(g2.correct).toBe(true);
    // Without the directory the sandbox grades it again.
    VERDICTS.clear();
    const third = createCodeGrader({ workers: 1, allowUnsandboxed: true });
    expect((await third.grade(code, task)).correct).toBe(false);
    await third.close();
  });

  it('believes no file that is not a whole verdict of its own key, and removes it', () => {
    const dir = fresh();
    const d = new DiskVerdicts(dir, 100);
    d.put('Akey', '["1",0,0,null,"1/1 tests passed",null]');
    expect(d.get('Akey', () => true)).toBe('["1",0,0,null,"1/1 tests passed",null]');
    const file = path.join(dir, 'A', 'Akey');
    writeFileSync(file, JSON.stringify({ key: 'Bkey', verdict: 'x' }));
    expect(d.get('Akey', () => true)).toBeNull();
    expect(() => statSync(file)).toThrow();
    d.put('Akey', 'garbage');
    expect(d.get('Akey', (v) => v.startsWith('['))).toBeNull();
  });

  it('keeps each shard within its share of the bound, the least recently used going first', () => {
    const dir = fresh();
    const d = new DiskVerdicts(dir, 64 * 10); // 10 files a shard
    for (let i = 0; i < 10; i++) d.put(`Q${i}`, `v${i}`);
    // Q0 is the oldest written but now the most recently used.
    const past = new Date(Date.now() - 60_000);
    for (let i = 1; i < 10; i++) utimesSync(path.join(dir, 'Q', `Q${i}`), past, past);
    expect(d.get('Q0', () => true)).toBe('v0');
    d.put('Q10', 'v10');
    const left = readdirSync(path.join(dir, 'Q'));
    expect(left.length).toBeLessThanOrEqual(10);
    expect(left).toContain('Q0');
    expect(left).toContain('Q10');
  });

  it('concurrent writer processes leave whole files only', async () => {
    const dir = fresh();
    const script = `const { DiskVerdicts } = await import(${JSON.stringify(path.resolve('src/tasks/graders/verdict-disk.ts'))});
const d = new DiskVerdicts(${JSON.stringify(dir)}, 6400);
for (let i = 0; i < 300; i++) d.put('K' + (i % 40), JSON.stringify(['1'.repeat(200), i % 40]));`;
    await Promise.all([0, 1, 2].map(() => new Promise<void>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'inherit' });
      p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
    })));
    const all = files(dir);
    expect(all.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(all).toHaveLength(40);
    for (const f of all) {
      const rec = JSON.parse(readFileSync(f, 'utf8')) as { key: string; verdict: string };
      expect(rec.key).toBe(path.basename(f));
      expect(JSON.parse(rec.verdict)[1]).toBe(Number(rec.key.slice(1)));
    }
  });

  it('is named by the scenario, else by EVOCHAMBER_VERDICT_CACHE, else off', () => {
    const env = { HOME: '/home/u', EVOCHAMBER_VERDICT_CACHE: '' };
    expect(verdictDirFor(undefined, '/s', env)).toBeNull();
    expect(verdictDirFor(true, '/s', { ...env, XDG_CACHE_HOME: '/c' })).toBe('/c/evochamber/verdicts');
    expect(verdictDirFor('v', '/s', env)).toBe('/s/v');
    expect(verdictDirFor(undefined, '/s', { ...env, EVOCHAMBER_VERDICT_CACHE: '/x' })).toBe('/x');
    expect(verdictDirFor(false, '/s', { ...env, EVOCHAMBER_VERDICT_CACHE: '/x' })).toBeNull();
  });
});
