import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadScenario, registerAssembler, registerChooser, registerLifecycleOperator, registerStalenessPolicy, registerStructure, runScenario,
} from '../../src/index';
import { toyCensus, toyFirstOffered, toyLastAgent, toyLastWord, toyWithinTau } from '../fixtures/throwaway-extensions';

/**
 * A new extension of each kind is one file and one `register*` call, with no other test edited
 * (STYLE.md, "One way to extend each kind"): the throwaways are registered through the package
 * entry, then the contract and team suites are collected with them registered, and each runs them
 * too. Nothing else may fail.
 */
registerStructure(toyLastWord);
registerAssembler(toyLastAgent);
registerChooser(toyFirstOffered);
registerLifecycleOperator(toyCensus);
registerStalenessPolicy(toyWithinTau);

await import('../team/structures.contract.test');
await import('../team/assemblers.contract.test');
await import('../team/choosers.contract.test');
await import('../population/lifecycle/operators.contract.test');
await import('../population/staleness/policies.contract.test');
await import('../team/assemble.test');
await import('../team/bandit.test');
await import('../team/leadlearn.test');
await import('../team/toy-structure.test');
await import('../team/vote.test');

describe('throwaway extensions, registered once', () => {
  it('run in a scenario as the built-in ones do: the structure\'s preset, the policy by name, the operator\'s settings', async () => {
    const { summary } = await runScenario(loadScenario('quickstart'), {
      patch: {
        variant: 'fixed-toy-last-word', 'stream.tasks': 12, 'engine.staleness.policy': 'toy-within-tau',
        'population.lifecycle.every': 4, 'population.lifecycle.toy-census.maxPerWindow': 2,
      },
      outDir: path.join(mkdtempSync(path.join(tmpdir(), 'evo-ext-')), 'run'), report: false,
    });
    expect(summary.tasks).toBe(12);
    expect(summary.structures).toBeDefined();
    expect(Object.values(summary.structures).every((byStructure) => Object.keys(byStructure).every((s) => s === 'toy-last-word'))).toBe(true);
    expect(summary.lineage).toHaveProperty('toy-census', 0);
  });

  it('are refused when a second, different one takes a name, and registering the same one again does nothing', () => {
    expect(() => registerStructure(toyLastWord)).not.toThrow();
    expect(() => registerStalenessPolicy({ ...toyWithinTau })).toThrow('two staleness policys are named "toy-within-tau"');
    expect(() => registerAssembler({ ...toyLastAgent, name: 'Bad Name' })).toThrow('assembler name "Bad Name" must be lower-case letters, digits and dashes');
  });
});
