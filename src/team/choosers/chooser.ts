import type { Rng } from '../../core/rng';
import type { LanguageModel, Usage } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import type { LeadershipBank, LeadershipEntry } from '../leadlearn/leadership-bank';
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
}

/** A chosen structure and why. */
export interface Choice {
  readonly structure: string;
  /** `model`: the leader's model chose; `fallback`: its reply was unusable; `fixed`/`random`: no model asked. */
  readonly source: 'model' | 'fallback' | 'fixed' | 'random';
  /** The leadership entries the choice was made from. */
  readonly retrieved: readonly LeadershipEntry[];
  readonly why: string;
  readonly usage?: Usage;
}

/** Picks the collaboration structure for one task. Contract: never throws for an unusable model reply. */
export type StructureChooser = (ctx: ChoiceContext) => Promise<Choice>;
