import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });
const out = () => mkdtempSync(path.join(tmpdir(), 'evo-cli-err-'));
const lines = (s: string) => s.trim().split('\n').filter(Boolean);

describe('command-line mistakes and closed pipes', () => {
  it('says every parse mistake in one line, with exit 2, never the help', () => {
    for (const args of [
      ['run', 'scenarios/quickstart.json', '--tasks', '-3'],
      ['run', 'scenarios/quickstart.json', '--variant', 'nope'],
      ['ablate', 'scenarios/quickstart.json', '--variants', 'nope'],
      ['run', 'scenarios/quickstart.json', '--bogus'],
      ['inspect'],
      ['frobnicate'],
    ]) {
      const r = cli(...args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(lines(r.stderr), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^evochamber: error: .* \(see evochamber( \w+)? --help\)$/m);
      expect(r.stdout).not.toContain('Options:');
    }
  });

  it('ends quietly when the reader closes the pipe', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader goes away before anything is written (as `| head -0` would).
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|Error/);
    expect(code).toBe(0);
  });

  it('inspects an ablation directory: one line per run with its state and accuracy', () => {
    const dir = path.join(out(), 'abl');
    expect(cli('ablate', 'scenarios/quickstart.json', '--variants', 'single-agent,individual', '--seeds', '1', '--tasks', '4', '--jobs', '1', '--quiet', '--out', dir).status).toBe(0);
    const r = cli('inspect', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ablation of quickstart · finished · 2 runs: 2 finished/m);
    expect(r.stdout).toMatch(/single-agent-s1\s+finished\s+4\/4 tasks\s+accuracy \d\.\d{3}/);
    const j = JSON.parse(lines(cli('inspect', dir, '--json').stdout).at(-1)!) as { finished: boolean; runs: { run: string; state: string }[] };
    expect(j.finished).toBe(true);
    expect(j.runs.map((x) => x.run)).toEqual(['single-agent-s1', 'individual-s1']);
    // A run stopped part-way (run.json says interrupted, as Ctrl-C leaves it) is counted as such.
    const runFile = path.join(dir, 'individual-s1', 'run.json');
    writeFileSync(runFile, JSON.stringify({ ...JSON.parse(readFileSync(runFile, 'utf8')), status: 'interrupted', progress: { committed: 2, total: 4 } }));
    rmSync(path.join(dir, 'ablation.json'));
    const again = cli('inspect', dir);
    expect(again.stdout).toMatch(/^ablation of quickstart · not finished · 2 runs: 1 finished, 1 interrupted, 0 not started$/m);
    expect(again.stdout).toMatch(/individual-s1\s+interrupted\s+2\/4 tasks/);
  });
});
