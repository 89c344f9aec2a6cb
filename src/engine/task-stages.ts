import { buildReflectPrompt, NO_EXPERIENCE, type Experience } from '../individual/agent-prompts';
import type { ArchiveEntry } from '../individual/archive';
import { parseReflection } from '../individual/reflection-parse';
import type { LanguageModel } from '../llm/model';
import type { AgentView } from '../population/roster';
import type { Niche } from '../tasks/niche';
import type { Grade, Task } from '../tasks/task';
import type { StructureResult } from '../team/structures/structure';
import type { Team } from '../team/team';
import type { Rng } from './rng';
import { ASSEMBLERS, STRUCTURES, type Preset } from './presets';
import type { Scenario } from './scenario-schema';

/** What every stage of one task run may use. Read-only views; no stage writes pool state. */
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
}

/** Assemble: pick the team with the preset's assembler. */
export function assembleTeam(d: StageDeps): Team {
  return ASSEMBLERS[d.preset.assembler]!({ task: d.task, roster: d.roster, rng: d.rng.fork('assemble') });
}

/** Each member's retrieval for this task (none when the preset has no memory). */
export async function retrieveExperience(d: StageDeps, team: Team): Promise<Map<string, Experience>> {
  const out = new Map<string, Experience>();
  if (!d.preset.memory) {
    for (const m of team.members) out.set(m.agent.id, NO_EXPERIENCE);
    return out;
  }
  const [query] = await d.model.embed([d.task.question]);
  for (const m of team.members) {
    out.set(m.agent.id, m.agent.archive.retrieve(query!, d.task.niche, d.scenario.memory.k, d.scenario.memory.kMeta));
  }
  return out;
}

/** Execute: run the chosen structure. */
export function executeStructure(d: StageDeps, team: Team, structure: string, experience: Map<string, Experience>): Promise<StructureResult> {
  const run = STRUCTURES[structure];
  if (!run) throw new Error(`unknown structure "${structure}"`);
  return run({
    task: d.task, spec: d.niche.spec, grader: d.niche.grader, model: d.model, team,
    experience: (id) => experience.get(id) ?? NO_EXPERIENCE,
    rng: d.rng.fork('structure'),
    options: { samples: d.scenario.structures.samples },
  });
}

/** The team's grade and each member's own reward (its final answer, graded once per distinct answer). */
export interface Grading {
  readonly team: Grade;
  readonly members: Readonly<Record<string, Grade>>;
}

const NO_ANSWER: Grade = { reward: 0, correct: false, extracted: null, detail: 'no answer' };

/** Grade: the team answer, then each member's answer (reusing the team grade where equivalent). */
export async function gradeResult(d: StageDeps, result: StructureResult): Promise<Grading> {
  const g = d.niche.grader;
  const team = result.finalText === null ? NO_ANSWER : await g.grade(result.finalText, d.task);
  const members: Record<string, Grade> = {};
  for (const [id, ans] of Object.entries(result.memberAnswers)) {
    if (ans.extracted === null) members[id] = NO_ANSWER;
    else if (team.extracted !== null && g.equivalent(ans.extracted, team.extracted)) members[id] = team;
    else members[id] = await g.grade(ans.text, d.task);
  }
  return { team, members };
}

/** One member's reflection: the parsed lesson and insight as archive entries, or why it failed. */
export interface Reflection {
  readonly agentId: string;
  readonly entries: readonly ArchiveEntry[];
  readonly lesson: string | null;
  readonly meta: string | null;
  /** False when the reply could not be parsed (recorded as a failed attempt). */
  readonly parsed: boolean;
}

/** Reflect: each member reviews its own answer, the team's answer and the reward. */
export async function reflectMembers(
  d: StageDeps, team: Team, result: StructureResult, grading: Grading, experience: Map<string, Experience>,
): Promise<Reflection[]> {
  if (!d.preset.memory) return [];
  return Promise.all(team.members.map(async (m): Promise<Reflection> => {
    const id = m.agent.id;
    const own = grading.members[id] ?? NO_ANSWER;
    const base = { agentId: id, entries: [], lesson: null, meta: null };
    let text: string;
    try {
      const out = await d.model.complete({
        messages: buildReflectPrompt({
          persona: m.agent.persona, spec: d.niche.spec, task: d.task,
          experience: experience.get(id) ?? NO_EXPERIENCE,
          ownAnswer: result.memberAnswers[id]?.extracted ?? null,
          teamAnswer: grading.team.extracted,
          reward: own.reward, correct: own.correct,
        }),
        stage: 'reflect', agentId: id, taskId: d.task.id, seedKey: `${d.task.id}/${id}/reflect`,
      });
      text = out.text;
    } catch {
      return { ...base, parsed: false };
    }
    const parsed = parseReflection(text);
    if (!parsed) return { ...base, parsed: false };
    const texts = [parsed.lesson, parsed.meta].filter((t) => t.length > 0);
    const keys = await d.model.embed(texts.map((t) => `${d.task.question}\n${t}`));
    const entries: ArchiveEntry[] = [{
      id: `${id}:${d.task.id}:lesson`, text: parsed.lesson, niche: d.task.niche, level: 'lesson',
      source: 'reflection', taskId: d.task.id, poolVersion: d.poolVersion, key: keys[0]!,
    }];
    if (parsed.meta) {
      entries.push({
        id: `${id}:${d.task.id}:meta`, text: parsed.meta, niche: null, level: 'meta',
        source: 'reflection', taskId: d.task.id, poolVersion: d.poolVersion, key: keys[1]!,
      });
    }
    return { agentId: id, entries, lesson: parsed.lesson, meta: parsed.meta || null, parsed: true };
  }));
}
