/**
 * The adversarial suite: the contract every change to the code sandbox must keep. Each hostile
 * candidate (hostile-candidates.ts) is graded against a task whose tests split into probes and
 * one whose tests the checker runs as scripts; every grade must be 0 and the host must be untouched.
 * test/tasks/sandbox/hostile.test.ts adds the stdin/stdout mode and the attacks on the checker design.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeGrader, type CodeGrader } from '../../../src/tasks/graders';
import type { Grade, Task } from '../../../src/tasks/task';
import { taskOf } from './completions.fixtures';
import { CONTROL, GOOD, HOSTILE, type HostileCandidate } from './hostile-candidates';

const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const PROJECT_FILE = join(PROJECT_DIR, 'package.json');

/** Tests the splitter turns into probes: values come back as data and are compared in Node. */
const PROBE_TASK: Task = taskOf('code', GOOD, {
  tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(10, 5) == 15', 'assert abs(add(2, 2) - 4) < 1e-9', 'import math\nassert math.isclose(add(1, 1), 2)'],
});
/** Tests that cannot be split: the checker runs them, calling the candidate for values. */
const SCRIPT_TASK: Task = taskOf('code', GOOD, {
  tests: ['x = add(1, 2)\nassert x == 3', 'assert add(2, 2) == add(1, 3)', 'def check(candidate):\n    r = candidate(4, 5)\n    assert r == 9\n    assert abs(candidate(1, 1) - 2) < 1e-9\n\ncheck(add)'],
});

interface Env { mark: string; port: number }

function render(c: HostileCandidate, env: Env): string {
  return c.code.replaceAll('{{MARK}}', env.mark).replaceAll('{{PROJECT}}', PROJECT_FILE).replaceAll('{{PORT}}', String(env.port));
}

const tasksFor = (c: HostileCandidate): Task[] => (c.only === 'probe' ? [PROBE_TASK] : c.only === 'script' ? [SCRIPT_TASK] : [PROBE_TASK, SCRIPT_TASK]);

/** The one candidate whose attack is time itself: it can only be stopped by the limit. */
const SLEEPER = 'sleeps past the time limit';

/**
 * Grade every candidate against its tasks in one batch, through one pool. Except for the sleeper,
 * a candidate must score 0 on its merits: a timeout would hide whether the attack was stopped.
 */
function suite(label: string, make: () => CodeGrader, candidates: readonly HostileCandidate[], controlTasks: readonly Task[] = [PROBE_TASK, SCRIPT_TASK]): void {
  describe(`adversarial suite (${label})`, () => {
    let grader: CodeGrader;
    let server: Server;
    let connections = 0;
    const env: Env = { mark: '', port: 0 };
    const grades = new Map<string, Grade[]>();
    const projectBefore = readdirSync(PROJECT_DIR).sort();

    beforeAll(async () => {
      env.mark = mkdtempSync(join(tmpdir(), 'evo-adversarial-'));
      process.env.EVO_ADVERSARIAL_SECRET = 'leak';
      server = createServer((s) => { connections++; s.destroy(); });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      env.port = (server.address() as AddressInfo).port;
      grader = make();
      const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``;
      await Promise.all(candidates.map(async (c) => {
        grades.set(c.name, await Promise.all(tasksFor(c).map((t) => grader.grade(fenced(render(c, env)), t))));
      }));
    }, 180_000);

    afterAll(async () => {
      await grader?.close();
      server?.close();
      delete process.env.EVO_ADVERSARIAL_SECRET;
      rmSync(env.mark, { recursive: true, force: true });
    });

    for (const c of candidates) {
      it(`scores 0: ${c.name}`, () => {
        const got = grades.get(c.name)!;
        expect(got.map((g) => ({ reward: g.reward, detail: g.detail })).filter((g) => g.reward !== 0)).toEqual([]);
        expect(got).toHaveLength(tasksFor(c).length);
        const timedOut = got.filter((g) => /^timeout/.test(g.detail)).length;
        expect(timedOut).toBe(c.name === SLEEPER ? got.length : 0);
      });
    }

    it('leaves the host untouched: no file written, no connection made, project tree unchanged', () => {
      expect(readdirSync(env.mark)).toEqual([]);
      expect(connections).toBe(0);
      expect(readdirSync(PROJECT_DIR).sort()).toEqual(projectBefore);
    });

    it('still grades the correct program 1 after the hostile batch, and so an escape that worked', async () => {
      for (const code of [GOOD, CONTROL]) {
        const fenced = `\`\`\`python\n${code}\n\`\`\``;
        for (const t of controlTasks) expect((await grader.grade(fenced, t)).reward).toBe(1);
      }
    });
  });
}

// A CPU budget no hostile candidate needs: every attack must be stopped by the sandbox, not by the
// limit (the "scores 0" tests check that none timed out).
const GENEROUS_MS = 30_000;
suite('bubblewrap, or the strongest isolation this host allows', () => createCodeGrader({ workers: 2, timeoutMs: GENEROUS_MS, allowUnsandboxed: true }),
  HOSTILE.filter((c) => c.name !== SLEEPER));

// The sleeper, alone: it uses no CPU, so only the wall backstop (wallFactor x timeoutMs = 2 s) can
// cut it. Its control is a probe task, which runs in the already-forked candidate process.
suite('the time limit', () => createCodeGrader({ workers: 1, timeoutMs: 1000, wallFactor: 2, allowUnsandboxed: true }), HOSTILE.filter((c) => c.name === SLEEPER), [PROBE_TASK]);

// Without bubblewrap the in-process guard is the only file-system boundary, so the attacks on
// it (and on the verdict) must fail there too.
const FALLBACK_KINDS = ['overwrites the worker globals', 'reads /etc/passwd', 'reads a project file', 'writes into a host directory',
  'symlink', 'host environment', 'connects', 'loads ctypes', 'forges result lines at load', 'patches builtins.compile', 'sys._getframe'];
suite('fallback without bubblewrap', () => createCodeGrader({ workers: 1, timeoutMs: GENEROUS_MS, isolation: 'fallback', allowUnsandboxed: true }),
  HOSTILE.filter((c) => FALLBACK_KINDS.some((k) => c.name.includes(k))));

describe('unsandboxed grading is opt-in', () => {
  it('refuses to start without bubblewrap unless allowUnsandboxed is set, saying how to install it', () => {
    expect(() => createCodeGrader({ isolation: 'fallback' })).toThrow(/apt-get install bubblewrap.*allowUnsandboxed/);
  });
});
