import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-cli-'));
function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.split('\n').filter((l) => l && !/ExperimentalWarning|--trace-warnings/.test(l)) };
}
function scenario(name: string, body: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

describe('evochamber CLI', () => {
  it('runs a scenario and prints the JSON summary as the last line', () => {
    const r = cli('run', 'scenarios/quickstart.json', '--tasks', '12', '--json', '--quiet', '--out', path.join(dir, 'run1'));
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(last.tasks).toBe(12);
    expect(last.accuracy).toBeGreaterThanOrEqual(0);
    expect(last.accuracy).toBeLessThanOrEqual(1);
    expect(Object.keys(last.perNiche).length).toBeGreaterThan(0);
    expect(last.tokens.total.calls).toBeGreaterThan(0);
    expect(last.runDir).toBe(path.join(dir, 'run1'));
  });

  it('rejects a malformed scenario with one error line naming file and field', () => {
    const f = scenario('typo', { name: 'x', stream: { tasks: 5, niches: [{ id: 'algebra' }] }, agnets: { count: 2 } });
    const r = cli('run', f);
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([`evochamber: error: ${f}: agnets: unknown field`]);
  });

  it('rejects an unknown niche with one error line', () => {
    const f = scenario('niche', { name: 'x', stream: { tasks: 5, niches: [{ id: 'poetry' }] } });
    const r = cli('run', f);
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/stream\.niches\[0\]\.id: unknown niche "poetry"/);
  });

  it('rejects a missing dataset path with one error line', () => {
    const f = scenario('data', { name: 'x', stream: { tasks: 5, niches: [{ id: 'gsm', dataset: { format: 'gsm8k', path: 'missing.jsonl' } }] } });
    const r = cli('run', f);
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/stream\.niches\[0\]\.dataset\.path: dataset file not found/);
  });

  it('rejects a bad flag value as a usage error (exit 2)', () => {
    const r = cli('run', 'scenarios/quickstart.json', '--tasks', 'many');
    expect(r.code).toBe(2);
    expect(r.stderr[0]).toBe('evochamber: error: --tasks takes a whole number ≥ 1, got "many"');
  });

  it('inspects a finished run', () => {
    cli('run', 'scenarios/quickstart.json', '--tasks', '6', '--quiet', '--out', path.join(dir, 'run2'));
    const r = cli('inspect', path.join(dir, 'run2'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/finished/);
    expect(r.stdout).toMatch(/accuracy/);
  });
});
