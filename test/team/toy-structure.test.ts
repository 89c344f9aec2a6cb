import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, runScenario, type Completion, type CompletionRequest } from '../../src/index';
import { SimModel } from '../../src/sim/sim-model';
import { SimPassThrough } from '../fakes/sim-pass-through';
import { choosableStructures, structureRegistry } from '../../src/team/structures';
import { toyCalls, toyRelay } from '../fixtures/toy-structure';

/** The simulated model, with every structure-choice prompt kept (it keeps the simulator's side channel, so it answers as the simulator does). */
class ChoiceSpy extends SimPassThrough {
  readonly choosePrompts: string[] = [];
  override complete(req: CompletionRequest): Promise<Completion> {
    const user = req.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
    if (user.startsWith('## Choose a structure')) this.choosePrompts.push(user);
    return super.complete(req);
  }
}

describe('a structure added in one file', () => {
  it('is offered to the leader, chosen, run by its own code and learned from by the bank', async () => {
    const qs = loadScenario(path.resolve('scenarios/quickstart.json'));
    // Math and reading niches only: an injected model's code would need the sandbox.
    const loaded = parseScenario({
      ...qs.scenario,
      stream: { ...qs.scenario.stream, tasks: 30, niches: [{ id: 'arithmetic' }, { id: 'algebra' }, { id: 'people-qa' }, { id: 'timeline-qa' }] },
    }, 'toy', qs.dir);
    const spy = new ChoiceSpy(new SimModel({ seed: loaded.scenario.seed, params: loaded.scenario.sim }));
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-toy-'));
    const { summary } = await runScenario(loaded, { patch: { variant: 'evochamber' }, model: spy, structures: [toyRelay], report: false, outDir: dir });
    expect(summary.tasks).toBe(30);
    expect(summary.failures).toBe(0);

    // The prompt listed it, after the registered ones, and last in the reply format.
    expect(spy.choosePrompts).toHaveLength(30);
    const registered = choosableStructures().map((d) => d.name);
    for (const p of spy.choosePrompts) {
      const toyLine = p.indexOf('\n- toy-relay: you answer alone, once; the others sign off on your answer unseen.\n');
      expect(toyLine).toBeGreaterThan(0);
      for (const name of registered) expect(p.indexOf(`\n- ${name}: `), name).toBeLessThan(toyLine);
      expect(p).toContain(`"structure": ${[...registered, 'toy-relay'].map((n) => JSON.stringify(n)).join(' | ')}`);
    }

    // The leader chose it, and each of those tasks ran through the toy's own code (and only those).
    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const chosen = events.filter((e) => e.type === 'structure.chosen' && e.structure === 'toy-relay');
    expect(chosen.length).toBeGreaterThan(0);
    expect(chosen.every((e) => e.source === 'model')).toBe(true);
    expect(toyCalls.map((c) => c.taskId)).toEqual(chosen.map((e) => e.taskId));
    expect(toyCalls.every((c) => c.members.length === 3)).toBe(true);
    const toyCount = Object.values(summary.structures).reduce((n, byStructure) => n + (byStructure['toy-relay'] ?? 0), 0);
    expect(toyCount).toBe(chosen.length);
    // Its tasks made one solve call (the leader's) and nothing else a built-in structure would.
    const toyTasks = new Set(toyCalls.map((c) => c.taskId));
    const attempts = events.filter((e) => e.type === 'attempt' && toyTasks.has(e.taskId as string));
    expect(attempts).toHaveLength(toyTasks.size);

    // The bank recorded its outcomes, and later prompts show them to the leader.
    const entries = events.filter((e) => e.type === 'leadlearn.entry' && e.structure === 'toy-relay');
    expect(entries.map((e) => e.taskId)).toEqual(chosen.map((e) => e.taskId));
    expect(spy.choosePrompts.some((p) => /toy-relay [1-9]\d* tasks, mean/.test(p))).toBe(true);
  }, 120_000);

  it('refuses two structures with one name', () => {
    expect(() => structureRegistry([{ ...toyRelay, name: 'voting' }])).toThrow(/two structures are named "voting"/);
    expect(() => structureRegistry([{ ...toyRelay, name: 'Toy Relay' }])).toThrow(/lower-case/);
  });
});
