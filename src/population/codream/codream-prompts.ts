import { area, formatExperience, type Experience } from '../../individual/agent-prompts';
import { clip } from '../../core/text';
import { renderTemplate } from '../../core/template';
import type { ChatMessage } from '../../llm/model';
import { promptTemplate } from '../../llm/prompt-kinds';
import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';

/** The five phases' templates, each with the kind of request it is. */
const TEMPLATES = {
  reflect: promptTemplate(import.meta.url, 'reflect', 'dream-reflect'),
  contrast: promptTemplate(import.meta.url, 'contrast', 'dream-contrast'),
  imagine: promptTemplate(import.meta.url, 'imagine', 'dream-imagine'),
  debate: promptTemplate(import.meta.url, 'debate', 'dream-debate'),
  crystallize: promptTemplate(import.meta.url, 'crystallize', 'dream-crystallize'),
};

function prompt(persona: string, name: keyof typeof TEMPLATES, values: Record<string, string>): ChatMessage[] {
  return [{ role: 'system', content: persona }, { role: 'user', content: renderTemplate(TEMPLATES[name].text(), values) }];
}

/** One member's attempt as CoDream sees it: its answer, its reward and the feedback it may see (never the gold). */
export interface DreamAttempt {
  readonly agentId: string;
  readonly persona: string;
  readonly text: string;
  readonly reward: number;
  readonly feedback: string | null;
  readonly experience: Experience;
}

/** Phase 1: a member privately diagnoses its own attempt. */
export function reflectPhasePrompt(spec: NicheSpec, task: Task, a: DreamAttempt): ChatMessage[] {
  return prompt(a.persona, 'reflect', {
    area: area(spec), experience: formatExperience(a.experience), question: task.question,
    attempt: clip(a.text || '(no answer)', 1200), reward: a.reward.toFixed(2), verdict: a.reward >= 0.5 ? 'succeeded' : 'failed',
    feedback: a.feedback ? `Feedback: ${a.feedback}\n` : '',
  });
}

/** Phase 2: contrast attempt A with attempt B (a failing one against a successful one, or two attempts that both fell short). */
export function contrastPhasePrompt(spec: NicheSpec, task: Task, persona: string, a: DreamAttempt, da: string, b: DreamAttempt, db: string): ChatMessage[] {
  const instruction = b.reward >= 0.5 && a.reward < 0.5
    ? 'Attempt A failed and attempt B succeeded. What did B do differently that A should learn? Name the technique.'
    : 'Neither attempt fully succeeded. How do they differ, and what technique might have worked?';
  return prompt(persona, 'contrast', {
    area: area(spec), question: task.question, instruction,
    rewardA: a.reward.toFixed(2), attemptA: clip(a.text || '(no answer)', 800), diagnosisA: clip(da, 400),
    rewardB: b.reward.toFixed(2), attemptB: clip(b.text || '(no answer)', 800), diagnosisB: clip(db, 400),
  });
}

/** Phase 3: turn the contrasts into candidate strategies tagged with niches. */
export function imaginePhasePrompt(spec: NicheSpec, task: Task, persona: string, deltas: readonly string[]): ChatMessage[] {
  return prompt(persona, 'imagine', {
    area: area(spec), question: task.question, niche: task.niche,
    deltas: deltas.length ? deltas.map((d, i) => `${i + 1}. ${clip(d, 500)}`).join('\n') : '(none)',
  });
}

/** A candidate strategy from the imagine phase. */
export interface Proposal {
  readonly strategy: string;
  readonly niches: readonly string[];
}

const listProposals = (ps: readonly Proposal[]) => ps.map((p, i) => `${i + 1}. ${clip(p.strategy, 400)} [niches: ${p.niches.join(', ')}]`).join('\n');

/** Phase 4: a member critiques the proposals. */
export function debatePhasePrompt(spec: NicheSpec, task: Task, persona: string, experience: Experience, proposals: readonly Proposal[]): ChatMessage[] {
  return prompt(persona, 'debate', {
    area: area(spec), experience: formatExperience(experience), question: task.question, proposals: listProposals(proposals),
  });
}

/** Phase 5: crystallize the surviving proposals into structured insights. */
export function crystallizePhasePrompt(spec: NicheSpec, task: Task, persona: string, proposals: readonly Proposal[]): ChatMessage[] {
  return prompt(persona, 'crystallize', { area: area(spec), question: task.question, niche: task.niche, proposals: listProposals(proposals) });
}
