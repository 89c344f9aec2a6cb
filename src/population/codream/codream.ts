import type { Experience } from '../../individual/agent-prompts';
import { inSpan } from '../../core/tracing/tracing';
import type { Knob } from '../../core/knob';
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
  /** The optional phases that run (`population.codream.phases`; default both): without `reflect` contrast gets no diagnoses, without `debate` every proposal is kept. */
  readonly phases?: readonly DreamPhaseOption[];
}

/** CoDream's optional phases; contrast, imagine and crystallize always run (they make the insights). */
export const DREAM_OPTIONAL_PHASES = ['reflect', 'debate'] as const;
/** An optional phase of a CoDream session. */
export type DreamPhaseOption = (typeof DREAM_OPTIONAL_PHASES)[number];

/**
 * What makes CoDream fire (`population.codream.trigger`): a failed team (mean member reward below
 * the threshold) or members who disagreed (the default), or a failed team only — the paper's
 * reading ("when the team fails"), for streams where members disagree on most tasks.
 */
export type DreamTriggerMode = 'failure-or-disagreement' | 'failure';

/** The trigger modes, in the order the settings list them (the first is the default). */
export const DREAM_TRIGGER_MODES = ['failure-or-disagreement', 'failure'] as const satisfies readonly DreamTriggerMode[];

/**
 * Whether CoDream fires, and why: the team's mean member reward is below `threshold` (`failure`),
 * members disagreed (`disagreement`), or both. Under `mode: 'failure'` disagreement alone never
 * fires it (a failed team that also disagreed is still `both`).
 */
export function dreamTrigger(
  team: Team, members: Readonly<Record<string, Grade>>, teamGrade: Grade, disagreement: boolean, threshold: number,
  mode: DreamTriggerMode = 'failure-or-disagreement',
): DreamTrigger | null {
  const rewards = team.members.map((m) => (members[m.agent.id] ?? teamGrade).reward);
  const failed = rewards.reduce((a, b) => a + b, 0) / rewards.length < threshold;
  if (mode === 'failure' && !failed) return null;
  return failed && disagreement ? 'both' : failed ? 'failure' : disagreement ? 'disagreement' : null;
}

/**
 * The settings of a CoDream session a meta-editor may change (docs/meta.md): when it fires and which
 * optional phases run. (Who receives its insights is routing's knob, in routing.ts.)
 */
export const DREAM_KNOBS: readonly Knob[] = [
  { kind: 'number', path: 'population.codream.threshold', min: 0.1, max: 0.9, description: 'a session runs when the team\'s mean reward is below this (or members disagree)' },
  { kind: 'enum', path: 'population.codream.trigger', values: DREAM_TRIGGER_MODES, description: 'what fires a session: a failed team or a disagreement, or a failed team only' },
  { kind: 'list', path: 'population.codream.phases', values: DREAM_OPTIONAL_PHASES, minItems: 0, description: 'optional phases that run: reflect (private diagnoses before contrast), debate (a vote on the proposals; without it every proposal is kept)' },
];

/** Each member's last attempt text (its final answer where it has one). */
function lastText(result: StructureResult, id: string): string {
  const own = result.memberAnswers[id]?.text;
  if (own) return own;
  for (let i = result.attempts.length - 1; i >= 0; i--) if (result.attempts[i]!.agentId === id && result.attempts[i]!.text) return result.attempts[i]!.text;
  return '';
}

/** Token usage and failed calls of one phase's model calls. */
export interface PhaseCalls {
  readonly usage: Usage;
  /** `<agent> <tag>: <error>` for each call that failed after its retries, in completion order. */
  readonly failed: readonly string[];
}

/** A phase's parsed output and the calls it made. */
export interface PhaseResult<T> {
  readonly value: T;
  readonly calls: PhaseCalls;
}

/** One phase's model-call helper: asks on behalf of an agent, counting usage and failures. */
function phaseCaller(input: DreamInput) {
  const usage = { promptTokens: 0, completionTokens: 0 };
  const failed: string[] = [];
  const call = async (messages: Parameters<typeof ask>[1], agentId: string, tag: string) => {
    const r = await ask(input.model, messages, 'codream', agentId, input.task.id, `${input.task.id}/${agentId}/codream/${tag}`);
    if (r.error) failed.push(`${agentId} ${tag}: ${r.error}`);
    usage.promptTokens += r.usage.promptTokens;
    usage.completionTokens += r.usage.completionTokens;
    return r.text;
  };
  const done = <T>(value: T): PhaseResult<T> => ({ value, calls: { usage, failed } });
  return { call, done };
}

/** Each member's attempt as the session sees it: last answer, reward, public-test feedback (never the gold). */
export async function gatherAttempts(input: DreamInput): Promise<DreamAttempt[]> {
  const { task, team, result } = input;
  return Promise.all(team.members.map(async (m) => {
    const text = lastText(result, m.agent.id);
    return {
      agentId: m.agent.id, persona: m.agent.persona, text, reward: (input.members[m.agent.id] ?? input.teamGrade).reward,
      feedback: text ? await testPublic(input.grader, task, text) : null, experience: input.experience(m.agent.id),
    };
  }));
}

/** Phase 1, Reflect: each member privately diagnoses its own attempt. Returns agent → diagnosis. */
export async function reflectPhase(input: DreamInput, attempts: readonly DreamAttempt[]): Promise<PhaseResult<Record<string, string>>> {
  const { call, done } = phaseCaller(input);
  const diagnoses = await Promise.all(attempts.map((a) => call(reflectPhasePrompt(input.spec, input.task, a), a.agentId, 'reflect').then((t) => parseField(t, 'diagnosis'))));
  return done(Object.fromEntries(attempts.map((a, i) => [a.agentId, diagnoses[i]!])));
}

/** Phase 2, Contrast: each failing member against each successful one; with no success (or no failure), neighbouring attempts. At most 4 pairs. */
export async function contrastPhase(input: DreamInput, attempts: readonly DreamAttempt[], diagnoses: Readonly<Record<string, string>>): Promise<PhaseResult<string[]>> {
  const { call, done } = phaseCaller(input);
  const ok = attempts.filter((a) => a.reward >= 0.5);
  const bad = attempts.filter((a) => a.reward < 0.5);
  const pairs: [DreamAttempt, DreamAttempt][] = ok.length && bad.length
    ? bad.flatMap((f) => ok.map((s) => [f, s] as [DreamAttempt, DreamAttempt]))
    : attempts.slice(0, -1).map((a, i) => [a, attempts[i + 1]!] as [DreamAttempt, DreamAttempt]);
  const deltas = (await Promise.all(pairs.slice(0, 4).map(([a, b], i) =>
    call(contrastPhasePrompt(input.spec, input.task, a.persona, a, diagnoses[a.agentId]!, b, diagnoses[b.agentId]!), a.agentId, `contrast-${i}`)
      .then((t) => parseField(t, 'delta'))))).filter((d) => d.length > 0);
  return done(deltas);
}

/** Phase 3, Imagine: the leader turns the deltas into candidate strategies. */
export async function imaginePhase(input: DreamInput, deltas: readonly string[]): Promise<PhaseResult<Proposal[]>> {
  const { call, done } = phaseCaller(input);
  const leader = input.team.members[0]!.agent;
  return done(parseProposals(await call(imaginePhasePrompt(input.spec, input.task, leader.persona, deltas), leader.id, 'imagine'), input.task.niche));
}

/** Phase 4, Debate: every member votes; a proposal survives with a strict majority of the votes cast. */
export async function debatePhase(input: DreamInput, proposals: readonly Proposal[]): Promise<PhaseResult<Proposal[]>> {
  const { call, done } = phaseCaller(input);
  const votes = await Promise.all(input.team.members.map((m) =>
    call(debatePhasePrompt(input.spec, input.task, m.agent.persona, input.experience(m.agent.id), proposals), m.agent.id, 'debate')
      .then((t) => parseDebateVote(t, proposals.length))));
  const cast = votes.filter((v): v is Set<number> => v !== null);
  return done(proposals.filter((_, i) => cast.length > 0 && cast.filter((v) => v.has(i)).length * 2 > cast.length));
}

/** Phase 5, Crystallize: the leader writes the survivors as structured insights, authored by the whole team. */
export async function crystallizePhase(input: DreamInput, kept: readonly Proposal[]): Promise<PhaseResult<Insight[]>> {
  const { call, done } = phaseCaller(input);
  const leader = input.team.members[0]!.agent;
  const parsed = parseInsights(await call(crystallizePhasePrompt(input.spec, input.task, leader.persona, kept), leader.id, 'crystallize'), input.task.niche, input.niches);
  const authors = input.team.members.map((m) => m.agent.id);
  return done(parsed.map((p, i): Insight => ({ id: `cd:${input.task.id}:${i}`, ...p, authors })));
}

interface SessionContext {
  readonly input: DreamInput;
  readonly trigger: DreamTrigger;
  attempts: DreamAttempt[];
  diagnoses: Record<string, string>;
  deltas: string[];
  proposals: Proposal[];
  kept: Proposal[];
  insights: Insight[];
  usage: Usage;
  failedCalls: string[];
}

/** Whether an optional phase runs in this session (every one does unless `phases` says otherwise). */
const runs = (input: DreamInput, phase: DreamPhaseOption) => input.phases?.includes(phase) ?? true;

/** Fold one phase's calls into the session's totals. */
const addCalls = (c: SessionContext, calls: PhaseCalls) => ({
  usage: { promptTokens: c.usage.promptTokens + calls.usage.promptTokens, completionTokens: c.usage.completionTokens + calls.usage.completionTokens },
  failedCalls: [...c.failedCalls, ...calls.failed],
});

type PhaseIn<T> = { input: DreamInput } & T;

/** The phases of a session, one function each, on the previous phase's output; tests swap any of them (`{ ...CODREAM_PHASES, debate }`). */
export interface CoDreamPhases {
  attempts(input: DreamInput): Promise<DreamAttempt[]>;
  reflect(p: PhaseIn<{ attempts: DreamAttempt[] }>): Promise<PhaseResult<Record<string, string>>>;
  contrast(p: PhaseIn<{ attempts: DreamAttempt[]; diagnoses: Record<string, string> }>): Promise<PhaseResult<string[]>>;
  imagine(p: PhaseIn<{ deltas: string[] }>): Promise<PhaseResult<Proposal[]>>;
  debate(p: PhaseIn<{ proposals: Proposal[] }>): Promise<PhaseResult<Proposal[]>>;
  crystallize(p: PhaseIn<{ kept: Proposal[] }>): Promise<PhaseResult<Insight[]>>;
}

/** The phases a run uses. */
export const CODREAM_PHASES: CoDreamPhases = {
  attempts: (input) => gatherAttempts(input),
  reflect: (p) => reflectPhase(p.input, p.attempts),
  contrast: (p) => contrastPhase(p.input, p.attempts, p.diagnoses),
  imagine: (p) => imaginePhase(p.input, p.deltas),
  debate: (p) => debatePhase(p.input, p.proposals),
  crystallize: (p) => crystallizePhase(p.input, p.kept),
};

/**
 * One CoDream session (docs/how-it-works.md): attempts → Reflect → Contrast → Imagine → Debate →
 * Crystallize, each phase a real prompt and a parsed, validated output. Debate and Crystallize are
 * skipped when there is nothing to vote on or keep; Reflect and Debate when the input's `phases`
 * leaves them out. Feedback is the reward (plus public-test output for code), never the gold answer.
 * Never fails for a failed or malformed reply: a phase with nothing usable yields fewer (or no)
 * insights, and failed calls are listed in the result. Rejects only on a bug or a grader error in
 * the attempts phase (public tests), which the task run records as a failure.
 *
 * A plain async function, not an actor: a session owns no state anyone sends events to (its
 * insights reach the pool through the supervisor at commit), and an actor with a child per phase,
 * created per session, was a twentieth of evochamber's CPU (docs/benchmarks.md#speed).
 */
/** A phase's span when tracing is on (--otel), else the plain call. */
const phase = <T>(name: string, fn: () => Promise<T>): Promise<T> => inSpan(`codream ${name}`, { 'evochamber.codream.phase': name }, fn);

export async function runCoDream(input: DreamInput, trigger: DreamTrigger, phases: CoDreamPhases = CODREAM_PHASES): Promise<DreamResult> {
  let c: SessionContext = {
    input, trigger, attempts: [], diagnoses: {}, deltas: [], proposals: [], kept: [], insights: [],
    usage: { promptTokens: 0, completionTokens: 0 }, failedCalls: [],
  };
  c.attempts = await phase('attempts', () => phases.attempts(input));
  if (runs(input, 'reflect')) {
    const r = await phase('reflect', () => phases.reflect({ input, attempts: c.attempts }));
    c = { ...c, diagnoses: r.value, ...addCalls(c, r.calls) };
  }
  const contrast = await phase('contrast', () => phases.contrast({ input, attempts: c.attempts, diagnoses: c.diagnoses }));
  c = { ...c, deltas: contrast.value, ...addCalls(c, contrast.calls) };
  const imagine = await phase('imagine', () => phases.imagine({ input, deltas: c.deltas }));
  c = { ...c, proposals: imagine.value, ...addCalls(c, imagine.calls) };
  if (c.proposals.length > 0) {
    if (runs(input, 'debate')) {
      const d = await phase('debate', () => phases.debate({ input, proposals: c.proposals }));
      c = { ...c, kept: d.value, ...addCalls(c, d.calls) };
    } else c = { ...c, kept: c.proposals }; // No debate: every proposal is kept and crystallized.
    if (c.kept.length > 0) {
      const k = await phase('crystallize', () => phases.crystallize({ input, kept: c.kept }));
      c = { ...c, insights: k.value, ...addCalls(c, k.calls) };
    }
  }
  return {
    trigger: c.trigger, insights: c.insights, proposals: c.proposals.length, kept: c.kept.length,
    usage: c.usage, failedCalls: c.failedCalls,
  };
}
