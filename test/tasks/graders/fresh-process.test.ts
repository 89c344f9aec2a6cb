/**
 * Every candidate runs in a process no earlier candidate touched: the worker forks its candidates'
 * processes ahead (two spares, between jobs) and a job uses only the parts it has, so a spare may
 * wait through several jobs before one uses it. Whatever a candidate leaves in its interpreter or its
 * temp dir must not reach the next one, in either sandbox mode and whichever part (probes, script
 * calls) each job uses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool, type SandboxPool } from '../../../src/tasks/graders';

// What a candidate sees of earlier ones (a mark on builtins, a file in its working directory, its
// pid), then leaves its own marks for the next.
const CODE = `import builtins, os
SEEN = [getattr(builtins, 'EVO_MARK', None), os.path.exists('mark'), os.getpid()]
builtins.EVO_MARK = os.getpid()
open('mark', 'w').write('x')
def seen():
    return SEEN`;
const probe = { text: 'seen()', fn: 'seen', args: [], kwargs: [] };
// A script test: runs in the checker; each call reaches the candidate's process as plain data.
const SCRIPT = 'r = seen()\nassert r[0] is None and r[1] is False, r';

for (const isolation of ['auto', 'fallback'] as const) {
  describe(`fresh process per candidate (${isolation})`, () => {
    const pool: SandboxPool = createSandboxPool({ workers: 1, isolation, allowUnsandboxed: true });
    afterAll(() => pool.close());

    it('no candidate sees another one, whichever parts the jobs use', async () => {
      const pids: number[] = [];
      // probes only, scripts only, both, scripts, probes, probes: spares are used out of order.
      for (const parts of [['p'], ['s'], ['p', 's'], ['s'], ['p'], ['p']]) {
        const r = await pool.run({ code: CODE, probes: parts.includes('p') ? [probe] : [], scripts: parts.includes('s') ? [SCRIPT] : [] });
        expect(r.failure).toBeNull();
        expect(r.loadError).toBeNull();
        for (const s of r.scripts) expect(s.passed, s.output).toBe(true);
        for (const p of r.probes) {
          const value = p && 'value' in p ? p.value : null;
          expect(value?.[0]).toBe('list');
          const [mark, file, pid] = value![1] as readonly (readonly unknown[])[];
          expect(mark).toEqual(['none']);
          expect(file).toEqual(['bool', false]);
          expect(pid?.[0]).toBe('int');
          pids.push(Number(pid![1]));
        }
      }
      expect(new Set(pids).size).toBe(pids.length);
    });
  });
}
