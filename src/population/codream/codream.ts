import type { Experience } from '../../individual/agent-prompts';
import type { LanguageModel, Usage } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Grade, Grader, Task } from '../../tasks/task';
import { ask } from '../../llm/ask';
import { testPublic } from '../../team/operators/review';
import type { StructureResult } from '../../team/structures/structure';
import type { Team } from '../../team/team';
import { parseDebateVote, parseField, parseInsights, parseProposals, type InsightLevel } from './codream-parse';
import {
  contrastPhasePrompt, crystallizePhasePrompt, debatePhasePrompt, imaginePhasePrompt, reflectPhasePrompt,
  type DreamAttempt, type Proposal,
} from './codream-prompts';

/** Why CoDream ran. */
export type DreamTrigger = 'failure' | 'disagreement' | 'both';

/** A crystallized insight, with who produced it. */
export interface Insight {
  readonly id: string;
  readonly text: string;
  readonly level: InsightLevel;
  readonly niche: string | null;
  readonly authors: readonly string[];
}

/** What one CoDream session produced. */
export interface DreamResult {
  readonly trigger: DreamTrigger;
  readonly insights: readonly Insight[];
  readonly proposals: number;
  readonly kept: number;
  readonly usage: Usage;
  /** Model calls of the session that failed after their retries (the engine then abandons the session). */
  readonly failedCalls: readonly string[];
}

/** Inputs of one session. */
export interface DreamInput {
  readonly model: LanguageModel;
  readonly spec: NicheSpec;
  readonly grader: Grader;
  readonly task: Task;
  readonly team: Team;
  readonly result: StructureResult;
  readonly members: Readonly<Record<string, Grade>>;
  readonly teamGrade: Grade;
  readonly experience: (agentId: string) => Experience;
  /** Niches of the stream (valid insight scopes). */
  readonly niches: ReadonlySet<string>;
}

/** CoDream fires when the team's mean member reward is below `threshold` or members disagreed. */
export function dreamTrigger(team: Team, members: Readonly<Record<string, Grade>>, teamGrade: Grade, disagreement: boolean, threshold: number): DreamTrigger | null {
  const rewards = team.members.map((m) => (members[m.agent.id] ?? teamGrade).reward);
  const failed = rewards.reduce((a, b) => a + b, 0) / rewards.length < threshold;
  return failed && disagreement ? 'both' : failed ? 'failure' : disagreement ? 'disagreement' : null;
}

/** Each member's last attempt text (its final answer where it has one). */
function lastText(result: StructureResult, id: string): string {
  const own = result.memberAnswers[id]?.text;
  if (own) return own;
  for (let i = result.attempts.length - 1; i >= 0; i--) if (result.attempts[i]!.agentId === id && result.attempts[i]!.text) return result.attempts[i]!.text;
  return '';
}

/**
 * One CoDream session (DESIGN.md section 5): Reflect → Contrast → Imagine → Debate → Crystallize,
 * each a real prompt with a parsed, validated output. Feedback is the reward (plus public-test
 * output for code), never the gold answer. Never throws for a failed or malformed reply: a
 * phase with nothing usable yields fewer (or no) insights.
 */
export async function runCoDream(input: DreamInput, trigger: DreamTrigger): Promise<DreamResult> {
  const { model, spec, task, team, result } = input;
  const usage = { promptTokens: 0, completionTokens: 0 };
  const failedCalls: string[] = [];
  const call = async (messages: Parameters<typeof ask>[1], agentId: string, tag: string) => {
    const r = await ask(model, messages, 'codream', agentId, task.id, `${task.id}/${agentId}/codream/${tag}`);
    if (r.error) failedCalls.push(`${agentId} ${tag}: ${r.error}`);
    usage.promptTokens += r.usage.promptTokens;
    usage.completionTokens += r.usage.completionTokens;
    return r.text;
  };

  const attempts: DreamAttempt[] = await Promise.all(team.members.map(async (m) => {
    const text = lastText(result, m.agent.id);
    return {
      agentId: m.agent.id, persona: m.agent.persona, text, reward: (input.members[m.agent.id] ?? input.teamGrade).reward,
      feedback: text ? await testPublic(input.grader, task, text) : null, experience: input.experience(m.agent.id),
    };
  }));

  // Reflect: private diagnoses.
  const diagnoses = await Promise.all(attempts.map((a) => call(reflectPhasePrompt(spec, task, a), a.agentId, 'reflect').then((t) => parseField(t, 'diagnosis'))));
  const diag = new Map(attempts.map((a, i) => [a.agentId, diagnoses[i]!]));

  // Contrast: each failing member against each successful one; with no success (or no failure), neighbouring attempts.
  const ok = attempts.filter((a) => a.reward >= 0.5);
  const bad = attempts.filter((a) => a.reward < 0.5);
  const pairs: [DreamAttempt, DreamAttempt][] = ok.length && bad.length
    ? bad.flatMap((f) => ok.map((s) => [f, s] as [DreamAttempt, DreamAttempt]))
    : attempts.slice(0, -1).map((a, i) => [a, attempts[i + 1]!] as [DreamAttempt, DreamAttempt]);
  const deltas = (await Promise.all(pairs.slice(0, 4).map(([a, b], i) =>
    call(contrastPhasePrompt(spec, task, a.persona, a, diag.get(a.agentId)!, b, diag.get(b.agentId)!), a.agentId, `contrast-${i}`)
      .then((t) => parseField(t, 'delta'))))).filter((d) => d.length > 0);

  // Imagine: the leader turns deltas into candidate strategies.
  const leader = team.members[0]!.agent;
  const proposals: Proposal[] = parseProposals(await call(imaginePhasePrompt(spec, task, leader.persona, deltas), leader.id, 'imagine'), task.niche);

  // Debate: every member votes; a proposal survives with a strict majority of the votes cast.
  let kept: Proposal[] = [];
  if (proposals.length) {
    const votes = await Promise.all(team.members.map((m) =>
      call(debatePhasePrompt(spec, task, m.agent.persona, input.experience(m.agent.id), proposals), m.agent.id, 'debate')
        .then((t) => parseDebateVote(t, proposals.length))));
    const cast = votes.filter((v): v is Set<number> => v !== null);
    kept = proposals.filter((_, i) => cast.length > 0 && cast.filter((v) => v.has(i)).length * 2 > cast.length);
  }

  // Crystallize: the leader writes the survivors as structured insights.
  const parsed = kept.length
    ? parseInsights(await call(crystallizePhasePrompt(spec, task, leader.persona, kept), leader.id, 'crystallize'), task.niche, input.niches)
    : [];
  const authors = team.members.map((m) => m.agent.id);
  const insights = parsed.map((p, i): Insight => ({ id: `cd:${task.id}:${i}`, ...p, authors }));
  return { trigger, insights, proposals: proposals.length, kept: kept.length, usage, failedCalls };
}
