/**
 * One rule for every output directory (src/store/output-dir.ts): a non-empty directory evochamber
 * did not write is refused in one line and left untouched; a file in the way that evochamber did
 * not write is never replaced; --force replaces only evochamber's own files. One test per command.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });
const lines = (s: string) => s.trim().split('\n').filter(Boolean);
const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-outdirs-'));
/** A directory of the user's: a report of their own, and notes. */
function usersDir(): string {
  const dir = tmp();
  mkdirSync(path.join(dir, 'report'));
  writeFileSync(path.join(dir, 'report', 'index.html'), 'my page');
  writeFileSync(path.join(dir, 'notes.txt'), 'mine');
  return dir;
}
const untouched = (dir: string) => {
  expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'report']);
  expect(readFileSync(path.join(dir, 'report', 'index.html'), 'utf8')).toBe('my page');
};
const refusedLine = (stderr: string, dir: string) => {
  expect(lines(stderr)).toHaveLength(1);
  expect(stderr).toContain(`--out ${dir}: exists, is not empty (notes.txt, report) and was not written by evochamber`);
};

describe('every output directory', () => {
  it('run: refuses a user\'s directory with or without --force; --force on a run replaces the run, never a file the user added', () => {
    const mine = usersDir();
    for (const force of [[], ['--force']]) {
      const r = cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--no-report', '--quiet', '--out', mine, ...force);
      expect(r.status).toBe(1);
      refusedLine(r.stderr, mine);
    }
    untouched(mine);
    const runDir = path.join(tmp(), 'r');
    expect(cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--no-report', '--quiet', '--out', runDir).status).toBe(0);
    writeFileSync(path.join(runDir, 'notes.txt'), 'mine');
    expect(cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--no-report', '--quiet', '--out', runDir).status).toBe(1);
    expect(cli('run', 'scenarios/quickstart.json', '--tasks', '3', '--no-report', '--quiet', '--out', runDir, '--force').status).toBe(0);
    expect(readFileSync(path.join(runDir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')).config.stream.tasks).toBe(3);
  });

  it('ablate: refuses a user\'s directory (their report is not replaced); --force replaces its own ablation only', () => {
    const mine = usersDir();
    const args = ['ablate', 'scenarios/quickstart.json', '--variants', 'single-agent', '--seeds', '1', '--tasks', '2', '--jobs', '1', '--quiet'];
    for (const force of [[], ['--force']]) {
      const r = cli(...args, '--out', mine, ...force);
      expect(r.status).toBe(1);
      refusedLine(r.stderr, mine);
    }
    untouched(mine);
    const out = path.join(tmp(), 'a');
    expect(cli(...args, '--out', out).status).toBe(0);
    expect(existsSync(path.join(out, 'report', 'index.html'))).toBe(true);
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    const again = cli(...args, '--out', out);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already holds an ablation/);
    expect(cli(...args, '--out', out, '--force').status).toBe(0);
    expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine');
    expect(existsSync(path.join(out, 'ablation.json'))).toBe(true);
  });

  it('report and export: refuse a user\'s directory; write again over their own files; a missing run is named as missing', () => {
    const runDir = path.join(tmp(), 'r');
    expect(cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--no-report', '--quiet', '--out', runDir).status).toBe(0);
    for (const cmd of ['report', 'export']) {
      const mine = usersDir();
      const r = cli(cmd, runDir, '--out', mine);
      expect(r.status).toBe(1);
      refusedLine(r.stderr, mine);
      untouched(mine);
      const own = path.join(tmp(), cmd);
      expect(cli(cmd, runDir, '--out', own).status).toBe(0);
      expect(cli(cmd, runDir, '--out', own).status).toBe(0);
    }
    const missing = cli('export', path.join(tmp(), 'nope'));
    expect(missing.status).toBe(1);
    expect(lines(missing.stderr)).toHaveLength(1);
    expect(missing.stderr).toMatch(/nope: no such directory; give a run's directory/);
  });

  it('calibrate --out: a file in the way that evochamber did not write is refused before anything is paid', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'w.fit.html'), 'my page');
    const targets = path.join(dir, 't.json');
    writeFileSync(targets, JSON.stringify({ schemaVersion: 1, targets: [{ variant: 'single-agent', niche: 'arithmetic', accuracy: 0.5, n: 40, source: 'x' }] }));
    const r = cli('calibrate', 'scenarios/quickstart.json', '--targets', targets, '--fit', 'base', '--out', path.join(dir, 'w.json'), '--quiet');
    expect(r.status).toBe(1);
    expect(lines(r.stderr)).toEqual([`evochamber: error: --out ${dir}: holds w.fit.html, which evochamber did not write; move it away or pick another directory`]);
    expect(readdirSync(dir).sort()).toEqual(['t.json', 'w.fit.html']);
    expect(readFileSync(path.join(dir, 'w.fit.html'), 'utf8')).toBe('my page');
  });
});

describe('reports never collide', () => {
  it('a run\'s report goes inside it (two runs of one name, two reports); --report-dir chooses, and a user\'s directory is refused before the run', () => {
    const a = path.join(tmp(), 'same');
    const b = path.join(tmp(), 'same');
    for (const [dir, seed] of [[a, '1'], [b, '2']] as const) {
      const r = cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--seed', seed, '--quiet', '--out', dir);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`report: ${path.join(dir, 'report', 'index.html')}`);
    }
    expect(readFileSync(path.join(a, 'report', 'summary.md'), 'utf8')).not.toBe(readFileSync(path.join(b, 'report', 'summary.md'), 'utf8'));
    // Never two runs on one report path: b's report into a's is refused, and a's stays a's.
    const aReport = readFileSync(path.join(a, 'report', 'summary.md'), 'utf8');
    const clash = cli('report', b, '--out', path.join(a, 'report'));
    expect(clash.status).toBe(1);
    expect(lines(clash.stderr)).toEqual([`evochamber: error: --out ${path.join(a, 'report')}: holds the report of ${a}; pick another directory (each run's report has its own)`]);
    expect(readFileSync(path.join(a, 'report', 'summary.md'), 'utf8')).toBe(aReport);
    const chosen = path.join(tmp(), 'rep');
    const c = cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--quiet', '--out', path.join(tmp(), 'c'), '--report-dir', chosen);
    expect(c.stdout).toContain(`report: ${path.join(chosen, 'index.html')}`);
    const mine = usersDir();
    const runDir = path.join(tmp(), 'd');
    const refused = cli('run', 'scenarios/quickstart.json', '--tasks', '2', '--quiet', '--out', runDir, '--report-dir', mine);
    expect(refused.status).toBe(1);
    expect(lines(refused.stderr)).toHaveLength(1);
    expect(refused.stderr).toContain(`--report-dir ${mine}: exists, is not empty`);
    expect(existsSync(runDir)).toBe(false);
    untouched(mine);
  });
});
