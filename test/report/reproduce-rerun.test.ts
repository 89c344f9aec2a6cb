import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 120_000 });

/** Split a command line the way sh does for what the report writes: bare words and single-quoted ones. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:[^\s']+|'[^']*')+/g)) words.push(m[0].replace(/'([^']*)'/g, '$1'));
  return words;
}

/** The last JSON line a `--json` run printed, without what differs between any two runs (where, how long). */
function summaryOf(stdout: string): Record<string, unknown> {
  const { runDir: _dir, timing: _timing, ...rest } = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  return rest;
}

describe('a report\'s reproduce commands reproduce', () => {
  it('both commands give the summary of the run they describe (evolve timing, latency, sampling, budget set by flags)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-repro-'));
    const first = cli(['run', 'scenarios/quickstart.json', '--tasks', '10', '--in-flight', '4', '--evolve-timing', 'when-ready', '--latency', 'qwen3-8b-h100-vllm',
      '--temperature', '0.6', '--sampling', '{"max_tokens":700}', '--extra-body', '{"chat_template_kwargs":{"enable_thinking":false}}',
      '--budget-completion-tokens', '9000000', '--seed', '4', '--json', '--quiet', '--no-report', '--out', path.join(dir, 'run')]);
    expect(first.status, first.stderr).toBe(0);
    const report = cli(['report', path.join(dir, 'run'), '--out', path.join(dir, 'report')]);
    expect(report.status, report.stderr).toBe(0);
    const { reproduce } = JSON.parse(readFileSync(path.join(dir, 'report', 'data.json'), 'utf8')) as { reproduce: { command: string; fromOriginal: string } };
    const want = summaryOf(first.stdout);
    expect(want.tasks).toBe(10);
    for (const [i, line] of [reproduce.command, reproduce.fromOriginal].entries()) {
      const words = shellSplit(line);
      expect(words.slice(0, 3)).toEqual(['npx', 'evochamber', 'run']);
      const again = cli([...words.slice(2), '--json', '--quiet', '--no-report', '--out', path.join(dir, `again-${i}`)]);
      expect(again.status, again.stderr).toBe(0);
      expect(summaryOf(again.stdout), line).toEqual(want);
    }
  });
});
