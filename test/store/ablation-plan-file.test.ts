import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ABLATION_PLAN_FILE, ABLATION_PLAN_SCHEMA_VERSION, readAblationPlan } from '../../src/store/ablation-plan-file';
import { ablationReproduceCommands } from '../../src/report/reproduce';

const dirWith = (plan: object) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-plan-'));
  writeFileSync(path.join(dir, ABLATION_PLAN_FILE), JSON.stringify(plan));
  return dir;
};
const config = { name: 'quickstart', model: { backend: 'sim' } };

describe('ablation-plan.json', () => {
  it('reads a version-2 plan with its sweep fields as the sweep.* entries of one patch, after the patch it had', () => {
    const plan = readAblationPlan(dirWith({
      schemaVersion: 2, config, scenarioDir: '/x', variants: ['evochamber'], seeds: 2,
      patch: { 'stream.tasks': 30, sweepBudget: { tokens: 9 } }, parallel: 'auto', jobs: 4, priorities: 'critical-path', deadlineHours: 2.5,
    }));
    expect(plan.schemaVersion).toBe(ABLATION_PLAN_SCHEMA_VERSION);
    expect(plan.patch).toEqual({
      'stream.tasks': 30, sweepBudget: { tokens: 9 }, 'sweep.parallel': 'auto', 'sweep.jobs': 4, 'sweep.priorities': 'critical-path', 'sweep.deadlineHours': 2.5,
    });
    expect(Object.keys(plan)).not.toContain('priorities');
  });

  it('reads a version-1 plan through version 2, its run fields and its jobs in the patch', () => {
    const plan = readAblationPlan(dirWith({ schemaVersion: 1, config, scenarioDir: '/x', variants: ['evochamber'], seeds: 1, tasks: 12, jobs: 2 }));
    expect(plan.patch).toEqual({ 'stream.tasks': 12, model: { backend: 'sim' }, 'sweep.jobs': 2 });
  });

  it('refuses a version it does not know, naming the file and the versions it reads', () => {
    const dir = dirWith({ schemaVersion: 9, config });
    expect(() => readAblationPlan(dir)).toThrow(`${path.join(dir, ABLATION_PLAN_FILE)}: schemaVersion 9 is not supported (this EvoChamber reads 3, 2 and 1)`);
  });

  it('gives a reproduce command that carries the sweep settings as --set entries, knowing no sweep flag', () => {
    const r = ablationReproduceCommands({ config, variants: ['a', 'b'], seeds: 2, patch: { 'sweep.priorities': 'critical-path', 'sweep.deadlineHours': 3 } }, '/tmp/abl');
    expect(r.fromOriginal).toBe('npx evochamber ablate scenarios/quickstart.json --variants a,b --seeds 2 --set sweep.priorities=critical-path --set sweep.deadlineHours=3');
  });
});
