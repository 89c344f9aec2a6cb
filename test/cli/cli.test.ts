import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

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
  // One run, read by the run test and inspected by the inspect test.
  let run1: ReturnType<typeof cli>;
  beforeAll(() => { run1 = cli('run', 'scenarios/quickstart.json', '--tasks', '12', '--json', '--quiet', '--no-report', '--out', path.join(dir, 'run1')); });

  it('runs a scenario and prints the JSON summary as the last line', () => {
    const r = run1;
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(last.tasks).toBe(12);
    // The printed accuracy is the run's: the mean reward of the graded tasks in its event log.
    const graded = readFileSync(path.join(dir, 'run1', 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((e) => e.type === 'task.graded');
    expect(graded).toHaveLength(12);
    expect(last.accuracy).toBeCloseTo(graded.reduce((a, e) => a + e.reward, 0) / graded.length, 3);
    expect(Object.keys(last.perNiche).length).toBeGreaterThan(0);
    expect(last.tokens.total.calls).toBeGreaterThan(0);
    expect(last.runDir).toBe(path.join(dir, 'run1'));
  });

  it('rejects a malformed scenario with one error line naming file and field', () => {
    const f = scenario('typo', { name: 'x', stream: { tasks: 5, niches: [{ id: 'algebra' }] }, agnets: { count: 2 } });
    const r = cli('run', f);
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([`evochamber: error: ${f}: agnets: unknown field (did you mean agents?)`]);
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
    expect(r.stderr).toEqual(['evochamber: error: --tasks takes a whole number ≥ 1, got "many" (see evochamber run --help)']);
    const w = cli('run', 'scenarios/quickstart.json', '--in-flight', 'lots');
    expect(w.code).toBe(2);
    expect(w.stderr).toEqual(['evochamber: error: --in-flight takes a whole number ≥ 1 or "auto", got "lots" (see evochamber run --help)']);
  });

  it('rejects an unknown --staleness policy or a negative --tau as usage errors (exit 2)', () => {
    const r = cli('run', 'scenarios/quickstart.json', '--staleness', 'lazy');
    expect(r.code).toBe(2);
    expect(r.stderr).toEqual(['evochamber: error: --staleness: unknown policy "lazy" (policies: full, guarded, reflective) (see evochamber run --help)']);
    expect(cli('run', 'scenarios/quickstart.json', '--tau', '-1').code).toBe(2);
  });

  it('inspects a finished run', () => {
    expect(run1.code).toBe(0);
    const r = cli('inspect', path.join(dir, 'run1'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/finished/);
    expect(r.stdout).toMatch(/accuracy/);
    expect(r.stdout).toMatch(/\b12\b/);
  });
});
