import { ASSEMBLERS } from '../../team/assemblers';
import { CHOOSERS } from '../../team/choosers';
import { choosableStructures, STRUCTURE_KINDS, STRUCTURES } from '../../team/structures';

// The registries live beside their descriptors (team/assemblers, team/choosers, team/structures).
export { ASSEMBLERS, CHOOSERS, STRUCTURES };

/**
 * A preset (variant): which parts of EvoChamber run. Baselines and ablations are presets over the
 * same code, never forks of it. The model never sees which preset runs.
 */
export interface Preset {
  readonly name: string;
  readonly description: string;
  /** `one`: a single agent; `scenario`: `agents.count` agents from the scenario. */
  readonly pool: 'one' | 'scenario';
  readonly assembler: string;
  /** How the structure is chosen per task. */
  readonly chooser: string;
  /** The structure for the `fixed` chooser, and the fallback when a leader's reply is unusable. */
  readonly structure: string;
  /** Agents retrieve from their archives and reflect after each task. */
  readonly memory: boolean;
  /** CoDream after failed or disputed tasks, and how its insights are routed. */
  readonly codream: 'off' | 'asymmetric' | 'symmetric';
  /** Lifecycle operators every `population.lifecycle.every` tasks. */
  readonly lifecycle: boolean;
  /**
   * Meta-editing between segments (docs/meta.md): `edit`, a meta-editor may change the procedure at
   * each segment's end; `fixed`, the same segments and reports with the procedure never changed (the
   * control); absent, no segments.
   */
  readonly meta?: 'edit' | 'fixed';
}

/** The full system: what every ablation removes one part of. */
const FULL = {
  pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'asymmetric', lifecycle: true,
} as const;

/** A lone agent without memory or population: what the single-agent baselines add to. */
const ALONE = {
  pool: 'one', assembler: 'first-agent', chooser: 'fixed', memory: false, codream: 'off', lifecycle: false,
} as const;

/**
 * The memory baselines: random teams of three always voting, private memories, a fixed roster. They
 * differ only in whether CoDream shares what a team learnt, so the pair measures the sharing alone.
 */
const MEMORY_TEAM = { ...FULL, assembler: 'random-team', chooser: 'fixed', structure: 'voting', lifecycle: false } as const;

/** The full system with its structure fixed: one per choosable structure. */
function fixedStructurePreset(structure: string): Preset {
  return {
    ...FULL, name: `fixed-${structure}`, chooser: 'fixed', structure,
    description: `Ablation: the full system with the structure fixed to ${structure} (no LeadLearn choice).`,
  };
}

/** Every preset: the built-in ones, and a `fixed-<name>` one per choosable structure registered later. */
export const PRESETS: Readonly<Record<string, Preset>> = Object.fromEntries(([
  { ...FULL, name: 'evochamber', description: 'The full system: private memories, anchor/complement/scout teams with LeadLearn, CoDream routed to below-median agents, lifecycle.' },
  {
    ...FULL, name: 'evochamber-bandit', chooser: 'bandit',
    description: 'The full system with the structure chosen by Thompson sampling over the leadership bank\'s per-niche outcomes (no model call, no notes) instead of the leader\'s model.',
  },
  { ...FULL, name: 'no-codream', codream: 'off', description: 'Ablation: the full system without CoDream (no knowledge transfer between agents).' },
  { ...FULL, name: 'no-lifecycle', lifecycle: false, description: 'Ablation: the full system with a fixed roster (no genesis, fork, merge, prune or specialize).' },
  { ...FULL, name: 'no-population', codream: 'off', lifecycle: false, description: 'Ablation: individual + team levels only (no CoDream, no lifecycle).' },
  { ...FULL, name: 'symmetric-codream', codream: 'symmetric', description: 'Ablation: CoDream insights broadcast to every agent, like a shared memory.' },
  { ...FULL, name: 'no-team', assembler: 'random-team', chooser: 'fixed', description: 'Ablation: random teams of three, always voting; memories, CoDream and lifecycle kept.' },
  { ...FULL, name: 'meta', meta: 'edit', description: 'The full system whose procedure (team weights, LeadLearn, CoDream, lifecycle, retrieval, staleness) a meta-editor edits between segments (AEVO).' },
  { ...FULL, name: 'no-meta', meta: 'fixed', description: 'Control for meta: the same segments, quiescent boundaries and reports, with the procedure never edited.' },
  { ...FULL, name: 'no-leadlearn', chooser: 'random', description: 'Ablation: structure drawn at random per task instead of LeadLearn; everything else kept.' },
  ...choosableStructures().map(({ name }) => fixedStructurePreset(name)),
  {
    ...MEMORY_TEAM, name: 'per-agent-memory', codream: 'off',
    description: 'Baseline per-agent memory (EvoMem, AgentNet): random teams voting, each agent with a private memory and no transfer or roster change.',
  },
  {
    ...MEMORY_TEAM, name: 'shared-memory', codream: 'symmetric',
    description: 'Baseline symmetric shared memory (MemCollab): per-agent-memory plus CoDream contrasting the team\'s attempts, its insights given to every agent alike; no team choice, no lifecycle.',
  },
  {
    ...FULL, name: 'structure-only', assembler: 'fixed-team', chooser: 'zero-shot', memory: false, codream: 'off', lifecycle: false,
    description: 'Baseline DyLAN (inference-time structure choice): a fixed team whose leader picks a structure per task with no cross-task state (no bank, no memory, no competence).',
  },
  {
    ...FULL, name: 'individual', assembler: 'round-robin', chooser: 'fixed', structure: 'single', codream: 'off', lifecycle: false,
    description: 'A pool of agents takes tasks in turn; each retrieves its own lessons and reflects (individual level only).',
  },
  {
    ...ALONE, name: 'self-consistency', structure: 'self-consistency',
    description: 'Baseline SC (self-consistency): one agent samples k = structures.samples answers per task (default 3, the full system\'s team size) and takes the majority; no memory.',
  },
  { ...ALONE, name: 'single-agent', structure: 'single', description: 'Baseline SA (single agent): one agent, one attempt per task, no memory.' },
] satisfies Preset[]).map((p) => [p.name, p]));

STRUCTURE_KINDS.onRegister((d) => {
  if (d.choosable) (PRESETS as Record<string, Preset>)[`fixed-${d.name}`] = fixedStructurePreset(d.name);
});

/** Look up a preset; the error lists the known names. */
export function getPreset(name: string): Preset {
  const p = PRESETS[name];
  if (!p) throw new Error(`unknown variant "${name}" (known: ${Object.keys(PRESETS).join(', ')})`);
  return p;
}

/** Agents a preset needs at least (its team size). */
export function minimumPool(p: Preset): number {
  return ASSEMBLERS[p.assembler]!.teamSize;
}
