import type { Assembler } from '../team/assemblers/assembler';
import { firstAgent } from '../team/assemblers/first-agent';
import { fixedTeam } from '../team/assemblers/fixed-team';
import { randomTeam } from '../team/assemblers/random-team';
import { roleAssembler } from '../team/assemblers/role-assembler';
import { roundRobin } from '../team/assemblers/round-robin';
import type { StructureChooser } from '../team/choosers/chooser';
import { fixedChooser } from '../team/choosers/fixed-chooser';
import { leadlearnChooser, zeroShotChooser } from '../team/choosers/leadlearn-chooser';
import { randomChooser } from '../team/choosers/random-chooser';
import { debate } from '../team/structures/debate';
import { decompose } from '../team/structures/decompose';
import { generatorCritic } from '../team/structures/generator-critic';
import { selfConsistency } from '../team/structures/self-consistency';
import { single } from '../team/structures/single';
import type { Structure } from '../team/structures/structure';
import { voting } from '../team/structures/voting';

/** Assemblers by name, with the team size each produces. */
export const ASSEMBLERS: Readonly<Record<string, { readonly assemble: Assembler; readonly teamSize: number }>> = {
  'first-agent': { assemble: firstAgent, teamSize: 1 },
  'round-robin': { assemble: roundRobin, teamSize: 1 },
  roles: { assemble: roleAssembler, teamSize: 3 },
  'random-team': { assemble: randomTeam, teamSize: 3 },
  'fixed-team': { assemble: fixedTeam, teamSize: 3 },
};

/** Structures by name. */
export const STRUCTURES: Readonly<Record<string, Structure>> = {
  single,
  'self-consistency': selfConsistency,
  voting,
  debate,
  'generator-critic': generatorCritic,
  decompose,
};

/** Structure choosers by name. */
export const CHOOSERS: Readonly<Record<string, StructureChooser>> = {
  fixed: fixedChooser,
  random: randomChooser,
  leadlearn: leadlearnChooser,
  'zero-shot': zeroShotChooser,
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
}

const preset = (p: Preset): Preset => p;

/** Every built-in preset. */
export const PRESETS: Readonly<Record<string, Preset>> = {
  evochamber: preset({
    name: 'evochamber',
    description: 'The full system: private memories, anchor/complement/scout teams with LeadLearn, CoDream routed to below-median agents, lifecycle.',
    pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'asymmetric', lifecycle: true,
  }),
  'no-codream': preset({
    name: 'no-codream',
    description: 'Ablation: the full system without CoDream (no knowledge transfer between agents).',
    pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'off', lifecycle: true,
  }),
  'no-lifecycle': preset({
    name: 'no-lifecycle',
    description: 'Ablation: the full system with a fixed roster (no genesis, fork, merge, prune or specialize).',
    pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'asymmetric', lifecycle: false,
  }),
  'no-population': preset({
    name: 'no-population',
    description: 'Ablation: individual + team levels only (no CoDream, no lifecycle).',
    pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'off', lifecycle: false,
  }),
  'symmetric-codream': preset({
    name: 'symmetric-codream',
    description: 'Ablation: CoDream insights broadcast to every agent, like a shared memory.',
    pool: 'scenario', assembler: 'roles', chooser: 'leadlearn', structure: 'voting', memory: true, codream: 'symmetric', lifecycle: true,
  }),
  'per-agent-memory': preset({
    name: 'per-agent-memory',
    description: 'Baseline: random teams voting, each agent with a private memory and no transfer or roster change.',
    pool: 'scenario', assembler: 'random-team', chooser: 'fixed', structure: 'voting', memory: true, codream: 'off', lifecycle: false,
  }),
  'single-agent': preset({
    name: 'single-agent',
    description: 'One agent, one attempt per task, no memory (SA baseline).',
    pool: 'one', assembler: 'first-agent', chooser: 'fixed', structure: 'single', memory: false, codream: 'off', lifecycle: false,
  }),
  'self-consistency': preset({
    name: 'self-consistency',
    description: 'One agent samples k answers per task and takes the majority; no memory.',
    pool: 'one', assembler: 'first-agent', chooser: 'fixed', structure: 'self-consistency', memory: false, codream: 'off', lifecycle: false,
  }),
  individual: preset({
    name: 'individual',
    description: 'A pool of agents takes tasks in turn; each retrieves its own lessons and reflects (individual level only).',
    pool: 'scenario', assembler: 'round-robin', chooser: 'fixed', structure: 'single', memory: true, codream: 'off', lifecycle: false,
  }),
  'no-team': preset({
    name: 'no-team',
    description: 'Ablation: random teams of three, always voting; memories, CoDream and lifecycle kept.',
    pool: 'scenario', assembler: 'random-team', chooser: 'fixed', structure: 'voting', memory: true, codream: 'asymmetric', lifecycle: true,
  }),
  'no-leadlearn': preset({
    name: 'no-leadlearn',
    description: 'Ablation: structure drawn at random per task instead of LeadLearn; everything else kept.',
    pool: 'scenario', assembler: 'roles', chooser: 'random', structure: 'voting', memory: true, codream: 'asymmetric', lifecycle: true,
  }),
  'structure-only': preset({
    name: 'structure-only',
    description: 'Baseline: a fixed team whose leader picks a structure per task with no cross-task state (no bank, no memory, no competence).',
    pool: 'scenario', assembler: 'fixed-team', chooser: 'zero-shot', structure: 'voting', memory: false, codream: 'off', lifecycle: false,
  }),
};

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
