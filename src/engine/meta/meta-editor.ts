import { knobBounds, type Knob } from '../../core/knob';
import { renderTemplate } from '../../core/template';
import { promptTemplate } from '../../llm/prompt-kinds';
import { ask } from '../../llm/ask';
import type { LanguageModel, Usage } from '../../llm/model';
import { parseJsonLoose } from '../../llm/parse-json';
import type { MetaConfig } from '../scenario/meta-config';
import type { KnobChange, Procedure } from './procedure';
import type { SegmentReport } from './segment-report';

const EDIT_TEMPLATE = promptTemplate(import.meta.url, 'meta-editor', 'meta');

/** The next segment's plan: its length, an optional token budget, and an optional stopping condition. */
export interface RunPlan {
  /** Tasks in the segment. */
  readonly tasks: number;
  /** End the segment once its committed work has spent this many tokens. */
  readonly tokens?: number;
  /** End the segment once its accuracy so far has not reached a new best for this many tasks. */
  readonly stopWhenFlatFor?: number;
}

/** What the meta-editor asked for, checked for shape (the patch itself is checked against the knobs later). */
export type MetaReply =
  | { readonly ok: true; readonly patch: Readonly<Record<string, unknown>>; readonly revert: number | null; readonly plan: RunPlan; readonly rationale: string }
  | { readonly ok: false; readonly reason: string };

/** An earlier edit and what followed it, as the meta-editor is shown it. */
export interface EditRecord {
  readonly segment: number;
  readonly accepted: boolean;
  readonly version: number;
  readonly changes: readonly KnobChange[];
  readonly reason?: string;
  /** Accuracy of the segment before the edit, and of the one after it (null until that one ended). */
  readonly before: number | null;
  after: number | null;
}

/** The meta-editor's prompt: the segment report, the knobs with their values and bounds, the history of edits. */
export function metaEditorPrompt(o: { segment: number; version: number; report: SegmentReport; knobs: readonly Knob[]; procedure: Procedure; history: readonly EditRecord[]; config: MetaConfig }) {
  const procedure = o.knobs.map((k) => `${k.path} = ${JSON.stringify(o.procedure[k.path])}  [${knobBounds(k)}] ${k.description}`).join('\n');
  const history = o.history.length === 0 ? '(none yet)' : o.history.map((h) => h.accepted
    ? `segment ${h.segment}: version ${h.version}: ${h.changes.length ? h.changes.map((c) => `${c.path} ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`).join('; ') : 'no change'}; accuracy ${fmt(h.before)} -> ${fmt(h.after)}`
    : `segment ${h.segment}: rejected (${h.reason})`).join('\n');
  const user = renderTemplate(EDIT_TEMPLATE.text(), {
    segment: String(o.segment), version: String(o.version), report: JSON.stringify(o.report, null, 1), procedure, history,
    minTasks: String(o.config.minTasks), maxTasks: String(o.config.maxTasks),
  });
  return [
    { role: 'system' as const, content: 'You are the meta-editor of an evolving multi-agent system. You change its procedure, never its tasks or its grading.' },
    { role: 'user' as const, content: user },
  ];
}

const fmt = (x: number | null) => (x === null ? '?' : x.toFixed(3));

/**
 * Ask the meta-editor (stage `meta`) and read its reply. Never throws: a failed call, a reply longer
 * than `maxReplyChars`, one that is not a JSON object, or one with a malformed plan is rejected whole,
 * with the reason.
 */
export async function askMetaEditor(model: LanguageModel, messages: ReturnType<typeof metaEditorPrompt>, segment: number, config: MetaConfig): Promise<{ reply: MetaReply; usage: Usage }> {
  const r = await ask(model, messages, 'meta', 'meta-editor', `meta-${segment}`, `meta/${segment}`);
  if (r.error) return { reply: { ok: false, reason: `the meta-editor's call failed: ${r.error}` }, usage: r.usage };
  return { reply: readMetaReply(r.text, config), usage: r.usage };
}

/** Read a meta-editor reply (tolerant JSON; a reply past the size limit is not read at all). */
export function readMetaReply(text: string, config: MetaConfig): MetaReply {
  if (text.length > config.maxReplyChars) return { ok: false, reason: `the reply is ${text.length} characters, more than ${config.maxReplyChars}` };
  const v = parseJsonLoose(text);
  if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, reason: 'the reply is not a JSON object' };
  const o = v as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !['patch', 'plan', 'rationale', 'revert'].includes(k));
  if (unknown !== undefined) return { ok: false, reason: `the reply has an unknown field "${unknown}"` };
  const patch = o.patch ?? {};
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return { ok: false, reason: 'patch is not an object' };
  let revert: number | null = null;
  if (o.revert !== undefined) {
    if (typeof o.revert !== 'number' || !Number.isInteger(o.revert) || o.revert < 0) return { ok: false, reason: 'revert must name a procedure version (a whole number)' };
    if (Object.keys(patch).length > 0) return { ok: false, reason: 'a reply either reverts or patches, not both' };
    revert = o.revert;
  }
  const plan = readPlan(o.plan, config);
  if (typeof plan === 'string') return { ok: false, reason: plan };
  const rationale = typeof o.rationale === 'string' ? o.rationale.slice(0, 1000) : '';
  return { ok: true, patch: patch as Record<string, unknown>, revert, plan, rationale };
}

function readPlan(raw: unknown, c: MetaConfig): RunPlan | string {
  if (raw === undefined) return { tasks: c.every };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'plan is not an object';
  const p = raw as Record<string, unknown>;
  const unknown = Object.keys(p).find((k) => !['tasks', 'tokens', 'stopWhenFlatFor'].includes(k));
  if (unknown !== undefined) return `plan has an unknown field "${unknown}"`;
  const int = (x: unknown) => typeof x === 'number' && Number.isInteger(x);
  const tasks = p.tasks ?? c.every;
  if (!int(tasks) || (tasks as number) < c.minTasks || (tasks as number) > c.maxTasks) return `plan.tasks must be a whole number ${c.minTasks}..${c.maxTasks}`;
  if (p.tokens !== undefined && (!int(p.tokens) || (p.tokens as number) < 1)) return 'plan.tokens must be a whole number ≥ 1';
  if (p.stopWhenFlatFor !== undefined && (!int(p.stopWhenFlatFor) || (p.stopWhenFlatFor as number) < 10 || (p.stopWhenFlatFor as number) > c.maxTasks)) {
    return `plan.stopWhenFlatFor must be a whole number 10..${c.maxTasks}`;
  }
  // Unset limits stay unset (left out of the meta.edit event's plan).
  return { tasks: tasks as number, tokens: p.tokens as number | undefined, stopWhenFlatFor: p.stopWhenFlatFor as number | undefined };
}
