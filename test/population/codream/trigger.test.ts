import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dreamTrigger } from '../../../src/population/codream/codream';
import { loadScenario, runScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { parseScenario } from '../../../src/engine/scenario/scenario';
import type { Grade } from '../../../src/tasks/task';
import { agentView, teamOf } from '../../fakes/agents';

const team = teamOf(agentView('a'), agentView('b'), agentView('c'));
const grade = (reward: number): Grade => ({ reward, correct: reward === 1, extracted: String(reward), detail: '' });
const members = (...r: number[]) => ({ a: grade(r[0]!), b: grade(r[1]!), c: grade(r[2]!) });

describe('CoDream trigger', () => {
  it('fires on a failed team or a disagreement by default, and says which', () => {
    expect(dreamTrigger(team, members(0, 0, 1), grade(0), false, 0.5)).toBe('failure');
    expect(dreamTrigger(team, members(1, 1, 0), grade(1), true, 0.5)).toBe('disagreement');
    expect(dreamTrigger(team, members(0, 0, 1), grade(0), true, 0.5)).toBe('both');
    expect(dreamTrigger(team, members(1, 1, 1), grade(1), false, 0.5)).toBeNull();
  });

  it('under the failure trigger, a disagreement alone never fires it', () => {
    expect(dreamTrigger(team, members(1, 1, 0), grade(1), true, 0.5, 'failure')).toBeNull();
    expect(dreamTrigger(team, members(0, 0, 1), grade(0), false, 0.5, 'failure')).toBe('failure');
    expect(dreamTrigger(team, members(0, 0, 1), grade(0), true, 0.5, 'failure')).toBe('both');
  });

  it('is a scenario setting, failure-or-disagreement unless set, and an unknown value is refused naming the field', () => {
    const loaded = loadScenario(path.resolve('scenarios/quickstart.json'));
    expect(loaded.scenario.population.codream.trigger).toBe('failure-or-disagreement');
    const raw = { name: 't', stream: { tasks: 10, niches: [{ id: 'algebra' }] } };
    expect(parseScenario({ ...raw, population: { codream: { trigger: 'failure' } } }).scenario.population.codream).toEqual({ threshold: 0.5, trigger: 'failure' });
    expect(() => parseScenario({ ...raw, population: { codream: { trigger: 'always' } } })).toThrow(/population\.codream\.trigger/);
  });

  it('a run honours the setting: under "failure" no session runs on a disagreement alone', async () => {
    const base = loadScenario(path.resolve('scenarios/hard.json'));
    const sessions = async (trigger?: 'failure') => {
      const loaded = trigger ? withOverrides(base, { population: { codream: { trigger } } }) : base;
      const { runDir } = await runScenario(loaded, { patch: { seed: 1, 'stream.tasks': 12 }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-trigger-')) });
      const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      return events.filter((e) => e.type === 'codream.session').map((e) => e.trigger as string);
    };
    const [both, failure] = [await sessions(), await sessions('failure')];
    expect(both).toContain('disagreement');
    expect(failure.length).toBeGreaterThan(0);
    expect(failure).not.toContain('disagreement');
  }, 120_000); // two 12-task runs: a guard against a hang, sized for a loaded 2-core machine
});
