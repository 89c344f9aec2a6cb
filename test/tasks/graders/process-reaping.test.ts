/**
 * Children reaped: when a code grader closes, and when a run ends (normally or by a signal), every
 * sandbox worker, checker and test splitter, and every process they started, has ended and been
 * waited for. The test walks /proc for the descendants of the process under test while it works,
 * then checks that none of them is left, not even as a zombie.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodeGrader } from '../../../src/tasks/graders';

/** Every descendant of `root` now, from /proc (pid -> parent pid). */
function descendants(root: number): Set<number> {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = new Set<number>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!out.has(pid) && (ppid === root || out.has(ppid))) {
        out.add(pid);
        grew = true;
      }
    }
  }
  return out;
}

/** Sample `root`'s descendants every few milliseconds until stopped; returns everything seen that was not there before. */
function watchDescendants(root: number, before: ReadonlySet<number> = new Set()): { stop(): Set<number> } {
  const seen = new Set<number>();
  const sample = () => { for (const p of descendants(root)) if (!before.has(p)) seen.add(p); };
  const timer = setInterval(sample, 5);
  return { stop: () => { sample(); clearInterval(timer); return seen; } };
}

/** What is left of `pids` (alive or zombie), with its command, for the failure message. */
const leftOf = (pids: Iterable<number>) => [...pids].filter((p) => existsSync(`/proc/${p}`)).map((p) => {
  try {
    return `${p} ${readFileSync(`/proc/${p}/stat`, 'utf8').split(' ').slice(1, 3).join(' ')}`;
  } catch {
    return `${p}`;
  }
});

const PROGRAM = 'def add(a, b):\n    return a + b\n';
const TESTS = ['assert add(1, 2) == 3', 'assert add(1, 2) in (3, 4)', 'for i in range(3):\n    assert add(i, i) == 2 * i'];

describe('children reaped', () => {
  for (const isolation of ['auto', 'fallback'] as const) {
    it(`a closed code grader leaves no process behind (${isolation})`, async () => {
      const before = descendants(process.pid);
      const watch = watchDescendants(process.pid, before);
      const grader = createCodeGrader({ workers: 2, isolation, allowUnsandboxed: true });
      const reports = await Promise.all([0, 1, 2, 3].map(() => grader.runTests(PROGRAM, TESTS)));
      expect(reports.map((r) => r.detail)).toEqual(reports.map(() => '3/3 tests passed'));
      await grader.close();
      const seen = watch.stop();
      // Workers, their checkers and the splitter (with bubblewrap, the sandboxed Pythons too) were seen working.
      expect(seen.size).toBeGreaterThanOrEqual(4);
      expect(leftOf(seen)).toEqual([]);
    }, 60_000);
  }

  it('a run of code niches ended by SIGTERM leaves no process behind once its CLI has exited', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-reap-'));
    const scenario = path.join(dir, 'code.json');
    writeFileSync(scenario, JSON.stringify({ name: 'code', seed: 2, stream: { order: 'interleaved', tasks: 1000, niches: [{ id: 'list-functions' }, { id: 'string-functions' }] }, agents: { count: 3 } }));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', scenario, '--out', path.join(dir, 'run'), '--no-report', '--quiet'], { stdio: 'ignore' });
    const watch = watchDescendants(child.pid!);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const events = path.join(dir, 'run', 'events.jsonl');
    for (const end = Date.now() + 60_000; !(existsSync(events) && /"type":"task\.done"/.test(readFileSync(events, 'utf8'))) && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await exited).toBe(4);
    const seen = watch.stop();
    expect(seen.size).toBeGreaterThanOrEqual(3);
    // tsx's own transpiler service (esbuild) runs only under tsx, never in the built CLI: not the run's.
    expect(leftOf(seen).filter((p) => !/\(esbuild\)/.test(p))).toEqual([]);
  }, 90_000);
});
