import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyModelFlags, MODEL_FLAG_OPTIONS } from '../../src/cli/model-flags';
import { applySamplingFlags, SAMPLING_FLAG_OPTIONS } from '../../src/cli/sampling-flags';
import { BUDGET_FLAG_OPTIONS, budgetFromFlags, withPriceFlags } from '../../src/cli/budget-flags';
import { evolveTimingFlag } from '../../src/cli/commands/run';
import { inFlightFlag } from '../../src/cli/usage';
import { applyRunOptions } from '../../src/engine/run/run-scenario';
import { parseScenario, type LoadedScenario } from '../../src/engine/scenario/scenario';
import type { ScenarioInput } from '../../src/engine/scenario/scenario-schema';
import { backendFlags, reproduceCommands, shellWord, type ReproducibleConfig } from '../../src/report/reproduce';

/** Split a command line the way sh does for what shellWord writes: bare words and single-quoted ones. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:[^\s']+|'[^']*')+/g)) words.push(m[0].replace(/'([^']*)'/g, '$1'));
  return words;
}

const scenario = (extra: Partial<ScenarioInput> = {}): LoadedScenario =>
  parseScenario({ name: 'rt', seed: 1, stream: { tasks: 30, niches: [{ id: 'arithmetic' }, { id: 'people-qa' }] }, ...extra }, 'rt.json', '/tmp');

/** Apply a reproduce command's flags to a scenario the way `evochamber run` does. */
async function rerun(command: string, original: LoadedScenario): Promise<LoadedScenario> {
  const argv = shellSplit(command).slice(3); // npx evochamber run
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      variant: { type: 'string' }, seed: { type: 'string' }, tasks: { type: 'string' }, 'in-flight': { type: 'string' }, staleness: { type: 'string' }, tau: { type: 'string' },
      'evolve-timing': { type: 'string' }, ...MODEL_FLAG_OPTIONS, ...SAMPLING_FLAG_OPTIONS, ...BUDGET_FLAG_OPTIONS,
    },
  });
  expect(positionals).toHaveLength(1);
  // As `evochamber run` applies them (src/cli/commands/run.ts).
  const withBackend = withPriceFlags(applySamplingFlags(await applyModelFlags(original, values), values), values);
  const budget = budgetFromFlags(values);
  return applyRunOptions(withBackend, {
    variant: values.variant, seed: Number(values.seed), tasks: Number(values.tasks), inFlight: inFlightFlag(values['in-flight']),
    staleness: { policy: values.staleness, tau: Number(values.tau) }, evolveTiming: evolveTimingFlag(values['evolve-timing']),
    ...(budget ? { budget } : {}),
  });
}

/** The reproduce commands of a run whose scenario, as run, is `asRun`. */
function commandsFor(asRun: LoadedScenario) {
  const s = asRun.scenario;
  return reproduceCommands(s as unknown as ReproducibleConfig, { scenario: s.name, variant: s.variant, seed: s.seed, tasks: s.stream.tasks }, '/tmp/report dir');
}

const openai = (extra: Record<string, unknown> = {}) => ({
  backend: 'openai' as const,
  endpoints: [{ baseURL: 'http://gpu1:8000/v1', model: 'Qwen/Qwen3-8B' }, { baseURL: 'http://gpu2:8000/v1', model: 'Qwen/Qwen3-8B' }],
  ...extra,
});

describe('the report\'s reproduce command', () => {
  it('names every run flag, --in-flight, the staleness policy and the backend included', () => {
    const asRun = applyRunOptions(scenario(), { variant: 'no-codream', seed: 5, tasks: 12, inFlight: 8, staleness: { policy: 'reflective', tau: 3 } });
    const { command, fromOriginal } = commandsFor(asRun);
    expect(fromOriginal).toBe('npx evochamber run scenarios/rt.json --variant no-codream --seed 5 --tasks 12 --in-flight 8 --staleness reflective --tau 3 --evolve-timing lag --backend sim');
    expect(command).toBe(`npx evochamber run '/tmp/report dir/scenario.json' --variant no-codream --seed 5 --tasks 12 --in-flight 8 --staleness reflective --tau 3 --evolve-timing lag --backend sim`);
  });

  it('carries evolve timing, latency, sampling, extra fields, budget and prices, from the original file and from the saved one', async () => {
    const original = scenario({ model: { backend: 'sim', stages: { reflect: { sampling: { temperature: 0.2 } } } } });
    const flagged = withPriceFlags(applySamplingFlags(await applyModelFlags(original, { latency: 'qwen3-8b-h100-vllm' }), {
      temperature: '0.6', sampling: '{"top_k":20,"max_tokens":900}', 'extra-body': '{"chat_template_kwargs":{"enable_thinking":false}}',
    }), { price: ['sim=0.1/0.4'] });
    const asRun = applyRunOptions(flagged, { inFlight: 8, evolveTiming: 'when-ready', budget: { completionTokens: 50_000, usd: 2 } });
    const { command, fromOriginal } = commandsFor(asRun);
    for (const line of [command, fromOriginal]) {
      expect(line).toContain('--evolve-timing when-ready');
      expect(line).toContain('--latency qwen3-8b-h100-vllm');
      expect(line).toContain(`--sampling '{"temperature":0.6,"top_k":20,"max_tokens":900}' --extra-body '{"chat_template_kwargs":{"enable_thinking":false}}'`);
      expect(line).toContain('--budget-completion-tokens 50000 --budget-usd 2 --price sim=0.1/0.4');
    }
    expect((await rerun(fromOriginal, original)).scenario).toEqual(asRun.scenario);
    expect((await rerun(command, asRun)).scenario).toEqual(asRun.scenario);
  });

  it('reproduces an adaptive window as --in-flight auto, its settings travelling in the scenario', async () => {
    const original = scenario({ engine: { inFlight: 2, auto: { initial: 8, max: 32 } } });
    const asRun = applyRunOptions(original, { inFlight: 'auto' });
    const { command, fromOriginal } = commandsFor(asRun);
    expect(command).toContain(' --in-flight auto ');
    expect((await rerun(fromOriginal, original)).scenario).toEqual(asRun.scenario);
    expect((await rerun(command, asRun)).scenario.engine).toMatchObject({ inFlight: 'auto', auto: { initial: 8, max: 32 } });
  });

  it('applied to the original scenario, gives the scenario as run (simulated model, over a file that named a server)', async () => {
    const original = scenario({ model: openai() });
    const asRun = applyRunOptions(await applyModelFlags(original, { backend: 'sim' }), { variant: 'individual', seed: 3, tasks: 17, inFlight: 4, staleness: { policy: 'guarded', tau: 2 } });
    expect((await rerun(commandsFor(asRun).fromOriginal, original)).scenario).toEqual(asRun.scenario);
    // And from the saved scenario as run.
    expect((await rerun(commandsFor(asRun).command, asRun)).scenario).toEqual(asRun.scenario);
  });

  it('gives back endpoints, model, key variable and tuning set by flags', async () => {
    const original = scenario();
    const asRun = applyRunOptions(await applyModelFlags(original, {
      'base-url': ['http://gpu1:8000/v1', 'http://gpu2:8000/v1'], model: 'Qwen/Qwen3-8B', 'api-key-env': 'MY_KEY',
      'max-concurrency': '64', 'timeout-ms': '5000', retries: '2', stream: true, 'no-sim-side-channel': true, 'embed-model': 'emb', 'embed-base-url': 'http://gpu3:8001/v1',
    }), { inFlight: 16 });
    const { fromOriginal } = commandsFor(asRun);
    expect(fromOriginal).toContain('--in-flight 16 --staleness full --tau 8 --evolve-timing lag --backend openai --base-url http://gpu1:8000/v1 --base-url http://gpu2:8000/v1 --model Qwen/Qwen3-8B');
    expect((await rerun(fromOriginal, original)).scenario).toEqual(asRun.scenario);
  });

  it('leaves named endpoints, groups and bindings to the scenario file and tunes them in place', async () => {
    const original = scenario({
      agents: { count: 4 },
      model: {
        backend: 'openai',
        endpoints: [
          { baseURL: 'http://gpu1:8000/v1', model: 'Qwen/Qwen3-8B' },
          { baseURL: 'http://gpu2:8000/v1', model: 'Qwen/Qwen3-32B', group: 'big' },
        ],
        bindings: { 'agent-01': 'big' },
      },
    });
    const asRun = applyRunOptions(await applyModelFlags(original, { 'max-concurrency': '8', retries: '0', 'no-sim-side-channel': true }), { tasks: 9 });
    const flags = backendFlags(asRun.scenario.model);
    expect(flags).not.toContain('--base-url');
    expect(flags).not.toContain('--model');
    expect(flags).toEqual(expect.arrayContaining(['--max-concurrency', '8', '--retries', '0', '--no-sim-side-channel']));
    expect((await rerun(commandsFor(asRun).fromOriginal, original)).scenario).toEqual(asRun.scenario);
  });

  it('quotes words the shell would split', () => {
    expect(shellWord('plain/path-1.json')).toBe('plain/path-1.json');
    expect(shellWord("it's a dir")).toBe(`'it'\\''s a dir'`);
  });
});
