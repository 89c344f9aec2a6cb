/**
 * Each command-line mistake is one line naming the problem and the fix, with its documented exit
 * code (docs/running.md, "Exit codes"): 2 for the command line, 1 for bad input.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { negativeNumbersAsValues } from '../../src/cli/usage';
import { watchChildLine } from '../../src/cli/watch-flag';

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });
const oneLine = (r: { stderr: string }) => { expect(r.stderr.trim().split('\n')).toHaveLength(1); return r.stderr.trim(); };
const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-msg-'));

describe('one line, the fix, the exit code', () => {
  it('an unknown option names the nearest valid flag; a negative number is the flag\'s value, checked against its range (exit 2)', () => {
    const typo = cli('run', 'quickstart', '--taks', '50');
    expect(typo.status).toBe(2);
    expect(oneLine(typo)).toBe('evochamber: error: unknown option --taks (did you mean --tasks?) (see evochamber run --help)');
    const negative = cli('run', 'quickstart', '--tasks', '-5');
    expect(negative.status).toBe(2);
    expect(oneLine(negative)).toBe('evochamber: error: --tasks takes a whole number ≥ 1, got "-5" (see evochamber run --help)');
    expect(negativeNumbersAsValues(['--tasks', '-5', '-h', '--seed=1', '-0.5'])).toEqual(['--tasks=-5', '-h', '--seed=1', '-0.5']);
  });

  it('a directory as the scenario, and a misspelt bundled name, say what to give instead (exit 1)', () => {
    const dir = cli('run', 'scenarios', '--tasks', '1');
    expect(dir.status).toBe(1);
    expect(oneLine(dir)).toMatch(/^evochamber: error: scenarios: is a directory, not a scenario file; give a \.json file \(here: [a-z-]+\.json, /);
    expect(dir.stderr).not.toMatch(/EISDIR/);
    const misspelt = cli('run', 'quickstrat', '--tasks', '1');
    expect(misspelt.status).toBe(1);
    expect(oneLine(misspelt)).toBe('evochamber: error: quickstrat: scenario file not found (did you mean quickstart?)');
  });

  it('a malformed --base-url is a command-line mistake (exit 2), before any request', () => {
    const r = cli('run', 'quickstart', '--tasks', '1', '--base-url', 'notaurl', '--out', path.join(tmp(), 'r'));
    expect(r.status).toBe(2);
    expect(oneLine(r)).toBe('evochamber: error: --base-url: "notaurl" is not a URL; give the server\'s address with /v1, e.g. http://127.0.0.1:8000/v1 (see evochamber run --help)');
  });

  it('the watch child\'s error keeps one "watch:" prefix and names the run\'s own flag', () => {
    expect(watchChildLine('evochamber: error: watch: port 7420 on 127.0.0.1 is in use (pick another with --port) (see evochamber watch --help)'))
      .toBe('watch: port 7420 on 127.0.0.1 is in use (pick another with --watch=PORT; the run goes on)');
    expect(watchChildLine('open http://127.0.0.1:7420/')).toBe('watch: open http://127.0.0.1:7420/');
  });

  it('report of a crashed run names its backend and says how many tasks were committed', async () => {
    const dir = path.join(tmp(), 'crash');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', 'quickstart', '--tasks', '100000', '--no-report', '--quiet', '--out', dir], { stdio: 'ignore' });
    const events = path.join(dir, 'events.jsonl');
    const done = () => (existsSync(events) ? readFileSync(events, 'utf8').split('\n').filter((l) => l.includes('"type":"task.done"')).length : 0);
    while (done() < 5) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const committed = done();
    const r = cli('report', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`the run did not finish (crashed): the report covers the ${committed} of 100000 tasks committed; continue it with: evochamber resume ${dir}`);
    expect(readFileSync(path.join(dir, 'report', 'summary.md'), 'utf8')).toContain('backend sim');
  }, 60_000);
});
