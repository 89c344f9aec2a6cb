import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, type LoadedScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import type { OpenAIModelConfig } from '../../../src/llm/openai/openai-config';

/** The quickstart scenario with the openai backend (fast retries for tests) merged in. */
export function quickstartOver(model: Partial<OpenAIModelConfig> & { endpoints: OpenAIModelConfig['endpoints'] | Array<Record<string, unknown>> }): LoadedScenario {
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  return withOverrides(base, {
    // serve-sim on loopback: the tests ask for the simulator's side channel by name, as a user must.
    model: { backend: 'openai', timeoutMs: 20_000, retries: 6, backoff: { baseMs: 20, maxMs: 200 }, health: { failureThreshold: 5, cooldownMs: 200 }, simSideChannel: true, ...model },
  } as never);
}

/** A fresh run directory. */
export const outDir = () => mkdtempSync(path.join(tmpdir(), 'evo-openai-'));

/** The run's events. */
export function readEvents(runDir: string): Array<Record<string, unknown>> {
  return readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

/** Every task is accounted for exactly once: one task.done per task, distinct ids. */
export function doneTaskIds(runDir: string): string[] {
  return readEvents(runDir).filter((e) => e.type === 'task.done').map((e) => e.taskId as string);
}
