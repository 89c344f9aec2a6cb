import { area } from '../../individual/agent-prompts';
import { renderTemplate } from '../../core/template';
import { promptTemplate } from '../../llm/prompt-kinds';
import type { ChatMessage } from '../../llm/model';
import { parseJsonLoose } from '../../llm/parse-json';
import type { NicheSpec } from '../../tasks/niche';
import { choosableStructures } from '../structures';
import type { StructureDescriptor } from '../structures/structure';
import { STRUCTURE_NAMES, type LeadershipEntry, type StructureName } from './leadership-bank';
import { wilsonInterval, MIN_AREA_RECORDS, type AreaPrior, type StructureStat } from './leadership-stats';

const CHOOSE_TEMPLATE = promptTemplate(import.meta.url, 'choose-structure', 'choose');

const f2 = (x: number) => x.toFixed(2);

/** One bank entry as the leader reads it. */
export function formatRecord(e: LeadershipEntry): string {
  return `- ${e.niche}; team ${e.teamProfile.map(f2).join('/')}; ${e.structure}; reward ${f2(e.outcome)}; "${e.note}"`;
}

/** Bank-wide evidence shown to the leader: each structure's statistics on this niche, then its prior from the other niches. */
export interface ChoiceEvidence {
  readonly niche: readonly StructureStat[];
  /** The cross-area prior (`LeadershipStats.priorFor`), shown apart and labelled as a prior. */
  readonly prior: readonly AreaPrior[];
}

/** One structure's statistics on this area: `debate 12 tasks, mean 0.71, 95% CI 0.45-0.88` (`0 tasks` with none). */
export function formatStat(s: StructureStat): string {
  const ci = wilsonInterval(s.count, s.mean);
  if (!ci) return `${s.structure} 0 tasks`;
  return `${s.structure} ${s.count} tasks, mean ${f2(s.mean)}, 95% CI ${f2(ci.low)}-${f2(ci.high)}`;
}

/** One structure's prior: `debate 3 areas, mean 0.55, range 0.40-0.78` (`0 areas` with none). */
export function formatPrior(p: AreaPrior): string {
  if (p.areas === 0) return `${p.structure} 0 areas`;
  return `${p.structure} ${p.areas} areas, mean ${f2(p.mean)}, range ${f2(p.low)}-${f2(p.high)}`;
}

function formatEvidence(e: ChoiceEvidence | null): { stats: string; prior: string } {
  if (!e) return { stats: '(none)', prior: '(none)' };
  return { stats: `- this area: ${e.niche.map(formatStat).join('; ')}`, prior: `- prior, other areas: ${e.prior.map(formatPrior).join('; ')}` };
}

/**
 * The leader's structure-choice prompt, showing this area's statistics first (with a 95% interval),
 * then the other areas' prior, labelled as one, then the retrieved records (none of them for
 * zero-shot choice). The structures offered are listed from their descriptors, one
 * `- name: description` line each, in the order given (default: the built-in choosable ones).
 */
export function chooseStructurePrompt(
  persona: string, spec: NicheSpec, teamSize: number, profile: readonly number[], records: readonly LeadershipEntry[], rounds: number,
  evidence: ChoiceEvidence | null = null, structures: readonly StructureDescriptor[] = choosableStructures(),
): ChatMessage[] {
  const values = {
    ...formatEvidence(evidence),
    teamSize: String(teamSize),
    area: area(spec),
    profile: `anchor ${f2(profile[0] ?? 0)}, complement ${f2(profile[1] ?? 0)}, scout ${f2(profile[2] ?? 0)}`,
    rounds: String(rounds),
    records: records.length ? records.map(formatRecord).join('\n') : '(none yet)',
    minArea: String(MIN_AREA_RECORDS),
  };
  const user = renderTemplate(CHOOSE_TEMPLATE.text(), {
    ...values,
    structures: structures.map((d) => `- ${d.name}: ${renderTemplate(d.description, values)}`).join('\n'),
    choices: structures.map((d) => JSON.stringify(d.name)).join(' | '),
  });
  return [{ role: 'system', content: persona }, { role: 'user', content: user }];
}

/** Parse the leader's reply: one of `names` (default: the built-in choosable ones), or null. Accepts JSON or a bare mention. */
export function parseStructureChoice(text: string, names: readonly string[] = STRUCTURE_NAMES): { structure: StructureName; why: string } | null {
  const parsed = parseJsonLoose(text) as { structure?: unknown; why?: unknown } | undefined;
  const raw = typeof parsed?.structure === 'string' ? parsed.structure : null;
  const norm = (s: string) => s.trim().toLowerCase().replace(/[\s_]+/g, '-');
  const byJson = raw ? names.find((s) => s === norm(raw)) : undefined;
  if (byJson) return { structure: byJson, why: typeof parsed?.why === 'string' ? parsed.why : '' };
  if (parsed) return null;
  const mentioned = names.filter((s) => new RegExp(`\\b${s}\\b`, 'i').test(text));
  return mentioned.length === 1 ? { structure: mentioned[0]!, why: text.trim().slice(0, 200) } : null;
}
