import type { Knob } from '../../core/knob';
import type { Rng } from '../../core/rng';
import type { LanguageModel, Usage } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import type { LeadershipBank, LeadershipEntry } from '../leadlearn/leadership-bank';
import type { StructureDescriptor } from '../structures/structure';
import type { Team } from '../team';

/** What a structure chooser may use. */
export interface ChoiceContext {
  readonly task: Task;
  readonly spec: NicheSpec;
  readonly team: Team;
  readonly model: LanguageModel;
  readonly rng: Rng;
  /** The shared leadership bank, read as of `poolVersion`. */
  readonly bank: LeadershipBank;
  readonly poolVersion: number;
  /** `leadershipKey` of this task's niche and team profile. */
  readonly key: Float32Array;
  /** Team competence on the niche: anchor, complement, scout. */
  readonly profile: readonly number[];
  /** Leadership entries to retrieve. */
  readonly k: number;
  readonly debateRounds: number;
  /** Structure for fixed choosers and the fallback when a reply is unusable. */
  readonly fallback: string;
  /** The structures that may be chosen, in registration order (default: the built-in choosable ones). */
  readonly structures?: readonly StructureDescriptor[];
}

/** A chosen structure and why. */
export interface Choice {
  readonly structure: string;
  /** `model`: the leader's model chose; `fallback`: its reply was unusable; `fixed`/`random`/`bandit`: no model asked. */
  readonly source: 'model' | 'fallback' | 'fixed' | 'random' | 'bandit';
  /** The leadership entries the choice was made from. */
  readonly retrieved: readonly LeadershipEntry[];
  readonly why: string;
  readonly usage?: Usage;
}

/** Picks the collaboration structure for one task. Contract: never throws for an unusable model reply. */
export type StructureChooser = (ctx: ChoiceContext) => Promise<Choice>;

/** A structure chooser, described in one file; the registry is `src/team/choosers/index.ts`. */
export interface ChooserDescriptor {
  /** The name a preset's `chooser` field uses. */
  readonly name: string;
  readonly choose: StructureChooser;
  /** After each task the leader writes a one-line note for the leadership bank (LeadLearn learns from it). */
  readonly writesNotes: boolean;
  /** Its settings a meta-editor may change between segments, with their bounds (scenario paths). */
  readonly knobs?: readonly Knob[];
  /**
   * After each task its outcome is appended to the leadership bank (default: `writesNotes`). A
   * chooser that learns from outcomes alone (`bandit`) keeps records without paying for notes.
   */
  readonly keepsRecords?: boolean;
}

/** Whether a chooser's tasks append a record to the leadership bank. */
export function keepsRecords(d: ChooserDescriptor | undefined): boolean {
  return d ? (d.keepsRecords ?? d.writesNotes) : false;
}
