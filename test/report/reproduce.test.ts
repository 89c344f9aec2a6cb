import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyModelFlags, MODEL_FLAG_OPTIONS } from '../../src/cli/model-flags';
import { inFlightFlag } from '../../src/cli/usage';
import { applyRunOptions } from '../../src/engine/run-scenario';
import { parseScenario, type LoadedScenario } from '../../src/engine/scenario';
import type { ScenarioInput } from '../../src/engine/scenario-schema';
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
    options: { variant: { type: 'string' }, seed: { type: 'string' }, tasks: { type: 'string' }, 'in-flight': { type: 'string' }, staleness: { type: 'string' }, tau: { type: 'string' }, ...MODEL_FLAG_OPTIONS },
  });
  expect(positionals).toHaveLength(1);
  const withBackend = await applyModelFlags(original, values);
  return applyRunOptions(withBackend, {
    variant: values.variant, seed: Number(values.seed), tasks: Number(values.tasks), inFlight: inFlightFlag(values['in-flight']),
    staleness: { policy: values.staleness, tau: Number(values.tau) },
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
    expect(fromOriginal).toBe('npx evochamber run scenarios/rt.json --variant no-codream --seed 5 --tasks 12 --in-flight 8 --staleness reflective --tau 3 --backend sim');
    expect(command).toBe(`npx evochamber run '/tmp/report dir/scenario.json' --variant no-codream --seed 5 --tasks 12 --in-flight 8 --staleness reflective --tau 3 --backend sim`);
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
    expect(fromOriginal).toContain('--in-flight 16 --staleness full --tau 8 --backend openai --base-url http://gpu1:8000/v1 --base-url http://gpu2:8000/v1 --model Qwen/Qwen3-8B');
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
