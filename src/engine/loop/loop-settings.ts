import { autoConfigOf } from '../scenario/auto-config';
import type { Preset } from '../scenario/presets';
import type { Scenario } from '../scenario/scenario-schema';
import type { LifecycleConfig } from '../../population/lifecycle/lifecycle-config';

/** When evolve outcomes are applied (`EngineOptions.evolveTiming`; `instant` for a zero-time model). */
export type EvolveTiming = 'instant' | 'lag' | 'when-ready';

/**
 * What the loop reads from the procedure tasks start under. Derived, never edited: the loop derives
 * it again whenever the meta-editor changes the procedure, so no setting is refreshed by hand.
 */
export interface LoopSettings {
  /** The solve window with a fixed number in flight (with `inFlight: "auto"`, the controller's first window). */
  readonly window: number;
  /** Sequential application: every evolve outcome queued so far is applied before tasks start and before a lifecycle window. */
  readonly settleAtSync: boolean;
  /** The lifecycle schedule and operators. */
  readonly life: LifecycleConfig;
  /** How CoDream routes insights: the scenario's choice, else the preset's. */
  readonly routing: 'symmetric' | 'asymmetric';
}

/**
 * The loop's settings for `scenario` (the scenario's, or the meta-editor's latest version of it).
 * Sequential is the paper's loop (one task in flight): a task's evolve stage is applied before the next
 * one starts; a zero-time model (`instant`) makes every outcome ready at once, so waiting for it costs
 * nothing and keeps application points independent of real I/O. `auto` starts at the controller's
 * initial window, read from `engine.auto` (which no meta edit changes).
 */
export function deriveLoopSettings(scenario: Scenario, preset: Pick<Preset, 'codream'>, timing: EvolveTiming): LoopSettings {
  const inFlight = scenario.engine.inFlight;
  return {
    window: typeof inFlight === 'number' ? inFlight : autoConfigOf(scenario.engine).initial,
    settleAtSync: inFlight === 1 || timing === 'instant',
    life: scenario.population.lifecycle,
    routing: scenario.population.codream.routing ?? (preset.codream === 'symmetric' ? 'symmetric' : 'asymmetric'),
  };
}
