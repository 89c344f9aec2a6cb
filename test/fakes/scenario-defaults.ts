import { loadScenario } from '../../src/index';

/** A validated scenario with every default applied (the quickstart's), as plain data: where a knob's default lives. */
export function scenarioDefaults(): Record<string, unknown> {
  return loadScenario('scenarios/quickstart.json').scenario as unknown as Record<string, unknown>;
}
