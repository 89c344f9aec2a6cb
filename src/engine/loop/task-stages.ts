import { NO_EXPERIENCE, type Experience } from '../../individual/agent-prompts';
import { competenceOf } from '../../individual/competence';
import { reflect, type Reflection } from '../../individual/reflection';
import type { LanguageModel } from '../../llm/model';
import { withKnownRefusals } from '../../llm/known-refusals';
import type { AgentView } from '../../individual/agent-view';
import type { SynergyReader } from '../../population/synergy';
import type { Niche } from '../../tasks/niche';
import type { Grade, Task } from '../../tasks/task';
import type { Choice } from '../../team/choosers/chooser';
import { leadershipKey, type LeadershipBank } from '../../team/leadlearn/leadership-bank';
import { writeLeadershipNote, type LeadershipNote } from '../../team/leadlearn/leadership-note';
import type { StructureResult } from '../../team/structures/structure';
import { dreamTrigger, runCoDream, type DreamResult } from '../../population/codream/codream';
import type { Team } from '../../team/team';
import type { Rng } from '../../core/rng';
import { CHOOSER_REGISTRY } from '../../team/choosers';
import { BUILTIN_STRUCTURE_REGISTRY, choosableStructures, type StructureRegistry } from '../../team/structures';
import { ASSEMBLERS, CHOOSERS, type Preset } from '../scenario/presets';
import type { Scenario } from '../scenario/scenario-schema';

/**
 * What every stage of one task run may use: read-only views of the pool as of `poolVersion`.
 * The archive, bank and synergy table are shared indexes, so reads filter by `poolVersion`; no stage writes pool state.
 */
export interface StageDeps {
  readonly model: LanguageModel;
  readonly preset: Preset;
  readonly scenario: Scenario;
  readonly niche: Niche;
  readonly task: Task;
  readonly rng: Rng;
  /** Snapshot of the active roster when the task started. */
  readonly roster: readonly AgentView[];
  readonly poolVersion: number;
  /** Pair synergy, read as of `poolVersion`. */
  readonly synergy: SynergyReader;
  readonly bank: LeadershipBank;
  /** Embedding of the task's niche id, computed once per run (the niche half of LeadLearn's key). */
  readonly nicheKey: Float32Array;
  /** The structures this run may use (default: the built-in ones). */
  readonly structures?: StructureRegistry;
  /** Structures set aside on this task's niche when it started (failures that repeat); none: nothing is. */
  readonly setAside?: ReadonlySet<string>;
  /** The HTTP statuses a structure's calls are known to be refused with, read at each call (team/structure-cooldown.ts); none: no call carries any. */
  readonly knownRefusals?: (structure: string) => readonly number[];
}

/** Assemble: pick the team with the preset's assembler. */
export function assembleTeam(d: StageDeps): Team {
  const { team } = d.scenario;
  return ASSEMBLERS[d.preset.assembler]!.assemble({
    task: d.task, roster: d.roster, rng: d.rng.fork('assemble'), weights: team.weights, c0: d.scenario.memory.c0,
    synergy: (i, j) => d.synergy.get(i, j, d.task.niche, team.synergy0, d.poolVersion),
  });
}

/** Team competence on the task's niche, in role order. */
export function teamProfile(d: StageDeps, team: Team): number[] {
  return team.members.map((m) => competenceOf(m.agent, d.task.niche, d.scenario.memory.c0));
}

/** The structures the leader may choose from: the choosable ones, narrowed to `team.offered` when the scenario (or a meta edit) names them. */
function offeredStructures(d: StageDeps) {
  const all = choosableStructures(d.structures);
  const offered = d.scenario.team.offered;
  const named = offered ? all.filter((s) => offered.includes(s.name)) : all;
  // A structure set aside is not offered, unless nothing else would be.
  const open = named.filter((s) => !d.setAside?.has(s.name));
  return open.length > 0 ? open : named;
}

/** Choose: the preset's chooser picks the structure (LeadLearn asks the leader's model from the bank). */
export async function chooseStructure(d: StageDeps, team: Team): Promise<Choice & { key: Float32Array }> {
  const profile = teamProfile(d, team);
  const key = leadershipKey(d.nicheKey, profile);
  const structures = offeredStructures(d);
  const aside = d.setAside?.has(d.preset.structure) === true && structures.some((s) => s.name !== d.preset.structure);
  const choice = await CHOOSERS[d.preset.chooser]!({
    task: d.task, spec: d.niche.spec, team, model: d.model, rng: d.rng.fork('choose'), bank: d.bank, poolVersion: d.poolVersion,
    key, profile, k: d.scenario.team.leadlearnK, debateRounds: d.scenario.structures.debateRounds,
    fallback: aside ? structures[0]!.name : d.preset.structure,
    structures,
  });
  const asideNote = (name: string, instead: string) => `${name} is set aside on this niche (failures that repeat); ${instead} instead. `;
  // The preset's structure, set aside, was replaced as the fixed choice or the fallback.
  if (aside && choice.structure !== d.preset.structure && (choice.source === 'fixed' || choice.source === 'fallback')) {
    return { ...choice, why: `${asideNote(d.preset.structure, choice.structure)}${choice.why}`, key };
  }
  // A chooser that names a structure set aside here anyway (its reply) gets the first one offered.
  if (d.setAside?.has(choice.structure) && structures.some((s) => s.name !== choice.structure)) {
    const instead = structures.find((s) => !d.setAside!.has(s.name))!.name;
    return { ...choice, structure: instead, why: `${asideNote(choice.structure, instead)}${choice.why}`, key };
  }
  return { ...choice, key };
}

/** Each member's retrieval for this task, as of the task's start version (none when the preset has no memory). */
export async function retrieveExperience(d: StageDeps, team: Team): Promise<Map<string, Experience>> {
  const out = new Map<string, Experience>();
  if (!d.preset.memory) {
    for (const m of team.members) out.set(m.agent.id, NO_EXPERIENCE);
    return out;
  }
  const [query] = await d.model.embed([d.task.question]);
  for (const m of team.members) {
    out.set(m.agent.id, m.agent.archive.retrieve(query!, d.task.niche, d.scenario.memory.k, d.scenario.memory.kMeta, d.poolVersion));
  }
  return out;
}

/** Execute: run the chosen structure. */
export function executeStructure(d: StageDeps, team: Team, structure: string, experience: Map<string, Experience>): Promise<StructureResult> {
  const run = (d.structures ?? BUILTIN_STRUCTURE_REGISTRY).get(structure)?.run;
  if (!run) throw new Error(`unknown structure "${structure}"`);
  const refusals = d.knownRefusals;
  return run({
    task: d.task, spec: d.niche.spec, grader: d.niche.grader, team,
    model: refusals ? withKnownRefusals(d.model, () => refusals(structure)) : d.model,
    experience: (id) => experience.get(id) ?? NO_EXPERIENCE,
    rng: d.rng.fork('structure'),
    options: { samples: d.scenario.structures.samples, debateRounds: d.scenario.structures.debateRounds, speculative: d.scenario.structures.speculative },
  });
}

/**
 * The team's grade, each member's final answer graded, and each member's first independent
 * answer graded (where the structure asked for one: voting, debate, the generator's first draft).
 */
export interface Grading {
  readonly team: Grade;
  readonly members: Readonly<Record<string, Grade>>;
  /** Grade of the member's own first answer, before seeing teammates; competence is updated from it. */
  readonly independent: Readonly<Record<string, Grade>>;
}

const NO_ANSWER: Grade = { reward: 0, correct: false, extracted: null, detail: 'no answer' };

/** Grade the team answer, members' final answers and their independent answers, each distinct answer once. */
export async function gradeResult(d: StageDeps, result: StructureResult): Promise<Grading> {
  const g = d.niche.grader;
  const graded: Grade[] = [];
  const gradeText = async (text: string, extracted: string | null): Promise<Grade> => {
    if (extracted === null) return NO_ANSWER;
    const seen = graded.find((x) => x.extracted !== null && g.equivalent(x.extracted, extracted));
    if (seen) return seen;
    const grade = await g.grade(text, d.task);
    graded.push(grade);
    return grade;
  };
  const team = result.finalText === null ? NO_ANSWER : await gradeText(result.finalText, g.extract(result.finalText));
  const members: Record<string, Grade> = {};
  for (const [id, ans] of Object.entries(result.memberAnswers)) members[id] = await gradeText(ans.text, ans.extracted);
  const independent: Record<string, Grade> = {};
  for (const a of result.attempts) {
    if (a.step !== 'solve' || a.index !== 0 || a.agentId in independent || a.cancelled) continue;
    independent[a.agentId] = await gradeText(a.text, a.extracted);
  }
  return { team, members, independent };
}

/** Reflect: each member reviews its own answer, the team's answer and how the team reached it, and the reward it earned (individual/reflection.ts). */
export function reflectMembers(
  d: StageDeps, team: Team, result: StructureResult, grading: Grading, experience: Map<string, Experience>,
): Promise<Reflection[]> {
  if (!d.preset.memory) return Promise.resolve([]);
  return Promise.all(team.members.map((m) => {
    const id = m.agent.id;
    const own = grading.members[id] ?? grading.team;
    return reflect({
      model: d.model, agentId: id, poolVersion: d.poolVersion, persona: m.agent.persona, spec: d.niche.spec, task: d.task,
      experience: experience.get(id) ?? NO_EXPERIENCE, ownAnswer: result.memberAnswers[id]?.extracted ?? null,
      teamAnswer: grading.team.extracted, teamWork: result.finalText, reward: own.reward, correct: own.correct,
      ...(d.scenario.memory.reflectionNote ? { note: d.scenario.memory.reflectionNote } : {}),
    });
  }));
}

/** CoDream, when the preset has it and the task failed or members disagreed (routing happens at commit). */
export async function dream(d: StageDeps, team: Team, result: StructureResult, grading: Grading, experience: Map<string, Experience>): Promise<KeyedDream | null> {
  if (d.preset.codream === 'off') return null;
  const { threshold, trigger: mode, phases } = d.scenario.population.codream;
  const trigger = dreamTrigger(team, grading.members, grading.team, result.disagreement, threshold, mode);
  if (!trigger) return null;
  const session = await runCoDream({
    model: d.model, spec: d.niche.spec, grader: d.niche.grader, task: d.task, team, result, members: grading.members, teamGrade: grading.team,
    experience: (id) => experience.get(id) ?? NO_EXPERIENCE, niches: new Set(d.scenario.stream.niches.map((n) => n.id)), ...(phases ? { phases } : {}),
  }, trigger);
  // A session with a failed call is abandoned (a fallback), never routed half-made.
  if (session.failedCalls.length > 0) return { ...session, insights: [], keys: [], fallback: `${session.failedCalls.length} CoDream calls failed; first: ${session.failedCalls[0]}` };
  const keys = session.insights.length ? await d.model.embed(session.insights.map((i) => `${d.task.question}\n${i.text}`)) : [];
  return { ...session, keys };
}

/** A CoDream session with the retrieval key of each insight (same order), and why it was abandoned if it was. */
export type KeyedDream = DreamResult & { readonly keys: readonly Float32Array[]; readonly fallback?: string };

/** LeadLearn's after-task step: the leader's one-line note (only when the bank is in use). */
export async function leadershipNote(d: StageDeps, team: Team, structure: string, grading: Grading, result: StructureResult): Promise<LeadershipNote | null> {
  if (!CHOOSER_REGISTRY.get(d.preset.chooser)?.writesNotes) return null;
  const leader = team.members[0]!.agent;
  return writeLeadershipNote(d.model, leader, d.niche.spec, d.task, structure, grading.team.reward, result.disagreement);
}
