import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
const run = async (variant: string, tasks: number) => {
  const { runDir } = await runScenario(quickstart, { variant, tasks, report: false, outDir: mkdtempSync(path.join(tmpdir(), `evo-mem-${variant}-`)) });
  return readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
};

describe('individual level in the simulated world', () => {
  // Whether memory pays (individual beats single-agent over 3 seeds) is a bench that checks its
  // claim: npm run bench -- memory. Here, the mechanism it rests on.
  it('an agent draws on its own earlier experience: each retrieved lesson is one it added before its task started, on the task\'s niche', async () => {
    const ev = await run('individual', 60);
    const added = new Map<string, Record<string, any>>(ev.filter((e) => e.type === 'lesson.added').map((e) => [e.entryId, e]));
    const started = new Map<string, Record<string, any>>(ev.filter((e) => e.type === 'task.started').map((e) => [e.taskId, e]));
    let lessons = 0;
    let meta = 0;
    for (const r of ev.filter((e) => e.type === 'experience.retrieved')) {
      const task = started.get(r.taskId)!;
      for (const [level, ids] of [['lesson', r.lessons], ['meta', r.meta]] as const) {
        for (const id of ids as string[]) {
          const e = added.get(id);
          expect(e, `${r.taskId}: ${r.agentId} retrieved ${id}, which was never added`).toBeDefined();
          expect([e!.agentId, e!.level], id).toEqual([r.agentId, level]);
          expect(e!.poolVersion, `${id} added at ${e!.poolVersion}, read by a task started at ${task.poolVersion}`).toBeLessThanOrEqual(task.poolVersion);
          if (level === 'lesson') expect(e!.niche, id).toBe(task.niche);
        }
      }
      lessons += r.lessons.length;
      meta += r.meta.length;
    }
    expect(lessons).toBeGreaterThan(0);
    expect(meta).toBeGreaterThan(0);
  });

  it('single-agent keeps no memory: it adds and retrieves nothing', async () => {
    const ev = await run('single-agent', 24);
    expect(ev.filter((e) => e.type === 'task.done')).toHaveLength(24);
    expect(ev.filter((e) => e.type === 'lesson.added' || e.type === 'experience.retrieved')).toEqual([]);
  });
});
