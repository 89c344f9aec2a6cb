import type { Assembler } from '../team/assemblers/assembler';
import { firstAgent } from '../team/assemblers/first-agent';
import { roundRobin } from '../team/assemblers/round-robin';
import { selfConsistency } from '../team/structures/self-consistency';
import { single } from '../team/structures/single';
import type { Structure } from '../team/structures/structure';

/** Assemblers by name. */
export const ASSEMBLERS: Readonly<Record<string, Assembler>> = {
  'first-agent': firstAgent,
  'round-robin': roundRobin,
};

/** Structures by name. */
export const STRUCTURES: Readonly<Record<string, Structure>> = {
  single,
  'self-consistency': selfConsistency,
};

/**
 * A preset (variant): which parts of EvoChamber run. Baselines and ablations are presets over the
 * same code, never forks of it. The model never sees which preset runs.
 */
export interface Preset {
  readonly name: string;
  readonly description: string;
  /** `one`: a single agent; `scenario`: `agents.count` agents from the scenario. */
  readonly pool: 'one' | 'scenario';
  readonly assembler: keyof typeof ASSEMBLERS & string;
  readonly structure: keyof typeof STRUCTURES & string;
  /** Agents retrieve from their archives and reflect after each task. */
  readonly memory: boolean;
}

/** Every built-in preset. */
export const PRESETS: Readonly<Record<string, Preset>> = {
  'single-agent': {
    name: 'single-agent',
    description: 'One agent, one attempt per task, no memory (SA baseline).',
    pool: 'one', assembler: 'first-agent', structure: 'single', memory: false,
  },
  'self-consistency': {
    name: 'self-consistency',
    description: 'One agent samples k answers per task and takes the majority; no memory.',
    pool: 'one', assembler: 'first-agent', structure: 'self-consistency', memory: false,
  },
  individual: {
    name: 'individual',
    description: 'A pool of agents takes tasks in turn; each retrieves its own lessons and reflects (individual level only).',
    pool: 'scenario', assembler: 'round-robin', structure: 'single', memory: true,
  },
};

/** Look up a preset; the error lists the known names. */
export function getPreset(name: string): Preset {
  const p = PRESETS[name];
  if (!p) throw new Error(`unknown variant "${name}" (known: ${Object.keys(PRESETS).join(', ')})`);
  return p;
}
