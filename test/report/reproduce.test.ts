import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MODEL_FLAG_OPTIONS } from '../../src/cli/model-flags';
import { SAMPLING_FLAG_OPTIONS } from '../../src/cli/sampling-flags';
import { BUDGET_FLAG_OPTIONS, budgetFromFlags } from '../../src/cli/budget-flags';
import { scenarioFlagsPatch, SET_FLAG_OPTIONS, type ScenarioFlagValues } from '../../src/cli/scenario-flags';
import { applyScenarioPatch } from '../../src/engine/scenario/apply-patch';
import { fieldsUnder } from '../../src/core/scenario-patch';
import { parseScenario, type LoadedScenario } from '../../src/engine/scenario/scenario';
import type { ScenarioInput } from '../../src/engine/scenario/scenario-schema';
import { patchLines, reproduceCommands, shellWord } from '../../src/report/reproduce';

/** Split a command line the way sh does for what shellWord writes: bare words and single-quoted ones. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:[^\s']+|'[^']*')+/g)) words.push(m[0].replace(/'([^']*)'/g, '$1'));
  return words;
}

const scenario = (extra: Partial<ScenarioInput> = {}): LoadedScenario =>
  parseScenario({ name: 'rt', seed: 1, stream: { tasks: 30, niches: [{ id: 'arithmetic' }, { id: 'people-qa' }] }, ...extra }, 'rt.json', '/tmp');

const OPTIONS = {
  variant: { type: 'string' }, seed: { type: 'string' }, tasks: { type: 'string' }, 'in-flight': { type: 'string' }, staleness: { type: 'string' }, tau: { type: 'string' },
  'evolve-timing': { type: 'string' }, ...SET_FLAG_OPTIONS, ...MODEL_FLAG_OPTIONS, ...SAMPLING_FLAG_OPTIONS, ...BUDGET_FLAG_OPTIONS,
} as const;

/** What `evochamber run` makes of its flags over `original` (src/cli/commands/run.ts): the patch, and the scenario as run. */
async function asRunBy(argv: string[], original: LoadedScenario) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const v = values as ScenarioFlagValues;
  const patch = await scenarioFlagsPatch(original, v, fieldsUnder('budget', budgetFromFlags(v)));
  return { patch, loaded: applyScenarioPatch(original, patch), positionals };
}

/** Run a reproduce command's flags over a scenario the way `evochamber run` does. */
async function rerun(command: string, over: LoadedScenario): Promise<LoadedScenario> {
  const { loaded, positionals } = await asRunBy(shellSplit(command).slice(3), over); // npx evochamber run
  expect(positionals).toHaveLength(1);
  return loaded;
}

/** A run made with `flags`, its reproduce commands, and whether each gives back the scenario as run. */
async function roundTrip(flags: string[], original: LoadedScenario) {
  const { patch, loaded: asRun } = await asRunBy(flags, original);
  const commands = reproduceCommands({ scenario: 'rt', patch }, '/tmp/report dir');
  expect((await rerun(commands.fromOriginal, original)).scenario).toEqual(asRun.scenario);
  // The saved scenario is the scenario as run: its command needs no flag.
  expect(commands.command).toBe(`npx evochamber run '/tmp/report dir/scenario.json'`);
  return { patch, asRun, commands };
}

describe('the report\'s reproduce command', () => {
  it('is the original file with the run\'s patch, one --set per entry in order, and the saved scenario alone', async () => {
    const { commands } = await roundTrip(['x.json', '--variant', 'no-codream', '--seed', '5', '--tasks', '12', '--in-flight', '8', '--staleness', 'reflective', '--tau', '3'], scenario());
    expect(commands.fromOriginal).toBe('npx evochamber run scenarios/rt.json --set variant=no-codream --set seed=5 --set stream.tasks=12 --set engine.inFlight=8 --set engine.staleness.policy=reflective --set engine.staleness.tau=3');
    expect(commands.patch).toEqual({ variant: 'no-codream', seed: 5, 'stream.tasks': 12, 'engine.inFlight': 8, 'engine.staleness.policy': 'reflective', 'engine.staleness.tau': 3 });
    expect(patchLines(commands.patch).split('\n')[0]).toBe('variant = "no-codream"');
  });

  it('carries evolve timing, latency, sampling, extra fields, budget and prices', async () => {
    const original = scenario({ model: { backend: 'sim', stages: { reflect: { sampling: { temperature: 0.2 } } } } });
    const { commands, asRun } = await roundTrip(['x.json', '--in-flight', '8', '--evolve-timing', 'when-ready', '--latency', 'qwen3-8b-h100-vllm',
      '--temperature', '0.6', '--sampling', '{"top_k":20,"max_tokens":900}', '--extra-body', '{"chat_template_kwargs":{"enable_thinking":false}}',
      '--price', 'sim=0.1/0.4', '--budget-completion-tokens', '50000', '--budget-usd', '2'], original);
    expect(asRun.scenario.model).toMatchObject({ latency: 'qwen3-8b-h100-vllm', sampling: { temperature: 0.6, top_k: 20, max_tokens: 900 }, stages: { reflect: { sampling: { temperature: 0.2 } } } });
    expect(asRun.scenario.budget).toEqual({ completionTokens: 50_000, usd: 2 });
    expect(commands.fromOriginal).toContain('--set engine.evolveTiming=when-ready');
    expect(commands.fromOriginal).toContain(`--set 'model.extraBody={"chat_template_kwargs":{"enable_thinking":false}}'`);
    expect(commands.fromOriginal).toContain('--set budget.completionTokens=50000 --set budget.usd=2');
  });

  it('reproduces an adaptive window as engine.inFlight=auto, its settings travelling in the scenario', async () => {
    const original = scenario({ engine: { inFlight: 2, auto: { initial: 8, max: 32 } } });
    const { commands, asRun } = await roundTrip(['x.json', '--in-flight', 'auto'], original);
    expect(commands.fromOriginal).toContain(' --set engine.inFlight=auto');
    expect(asRun.scenario.engine).toMatchObject({ inFlight: 'auto', auto: { initial: 8, max: 32 } });
  });

  it('gives back the simulated model over a file that named a server, and endpoints, key variable and tuning set by flags', async () => {
    const openai = { backend: 'openai' as const, endpoints: [{ baseURL: 'http://gpu1:8000/v1', model: 'Qwen/Qwen3-8B' }] };
    await roundTrip(['x.json', '--backend', 'sim', '--variant', 'individual', '--seed', '3', '--tasks', '17'], scenario({ model: openai }));
    const { asRun } = await roundTrip(['x.json', '--base-url', 'http://gpu1:8000/v1', '--base-url', 'http://gpu2:8000/v1', '--model', 'Qwen/Qwen3-8B', '--api-key-env', 'MY_KEY',
      '--max-concurrency', '64', '--timeout-ms', '5000', '--retries', '2', '--stream', '--no-sim-side-channel', '--embed-model', 'emb', '--embed-base-url', 'http://gpu3:8001/v1'], scenario());
    expect(asRun.scenario.model).toMatchObject({ backend: 'openai', timeoutMs: 5000, retries: 2, stream: true, simSideChannel: false });
  });

  it('keeps named endpoints, groups and bindings the flags tuned in place', async () => {
    const original = scenario({
      agents: { count: 4 },
      model: {
        backend: 'openai',
        endpoints: [{ baseURL: 'http://gpu1:8000/v1', model: 'Qwen/Qwen3-8B' }, { baseURL: 'http://gpu2:8000/v1', model: 'Qwen/Qwen3-32B', group: 'big' }],
        bindings: { 'agent-01': 'big' },
      },
    });
    const { asRun } = await roundTrip(['x.json', '--max-concurrency', '8', '--retries', '0', '--no-sim-side-channel', '--tasks', '9'], original);
    expect(asRun.scenario.model).toMatchObject({ bindings: { 'agent-01': 'big' }, retries: 0 });
  });

  it('--set wins over the flags, and a text that reads as a number stays text', async () => {
    const { patch, asRun } = await roundTrip(['x.json', '--tasks', '9', '--set', 'stream.tasks=11', '--set', 'name=007', '--set', 'description=a "quoted" word'], scenario());
    expect(asRun.scenario.stream.tasks).toBe(11);
    expect(patch).toEqual({ 'stream.tasks': 11, name: '007', description: 'a "quoted" word' });
    const text = await roundTrip(['x.json', '--set', 'name="7"'], scenario());
    expect(text.asRun.scenario.name).toBe('7');
    expect(text.commands.fromOriginal).toContain(`--set 'name="7"'`);
    await expect(asRunBy(['x.json', '--set', 'name=7'], scenario())).rejects.toThrow(/rt\.json \(with overrides\): name: /);
  });

  it('quotes words the shell would split', () => {
    expect(shellWord('plain/path-1.json')).toBe('plain/path-1.json');
    expect(shellWord("it's a dir")).toBe(`'it'\\''s a dir'`);
  });
});
