import { area } from '../../individual/agent-prompts';
import { loadTemplate, renderTemplate } from '../../core/template';
import type { ChatMessage } from '../../llm/model';
import { parseJsonLoose } from '../../llm/parse-json';
import type { NicheSpec } from '../../tasks/niche';
import { choosableStructures } from '../structures';
import type { StructureDescriptor } from '../structures/structure';
import { STRUCTURE_NAMES, type LeadershipEntry, type StructureName } from './leadership-bank';
import type { StructureStat } from './leadership-stats';

const f2 = (x: number) => x.toFixed(2);

/** One bank entry as the leader reads it. */
export function formatRecord(e: LeadershipEntry): string {
  return `- ${e.niche}; team ${e.teamProfile.map(f2).join('/')}; ${e.structure}; reward ${f2(e.outcome)}; "${e.note}"`;
}

/** Bank-wide evidence shown to the leader: each structure's statistics on this niche and for similar teams. */
export interface ChoiceEvidence {
  readonly niche: readonly StructureStat[];
  /** Teams in the same profile bucket (`profileBucket`), on any niche. */
  readonly team: readonly StructureStat[];
  readonly bucket: string;
}

/** One structure's statistics as the leader reads them: `debate 12 tasks, mean 0.71 ± 0.08`. */
export function formatStat(s: StructureStat): string {
  if (s.count === 0) return `${s.structure} 0 tasks`;
  return `${s.structure} ${s.count} tasks, mean ${f2(s.mean)} ± ${s.stderr === null ? '?' : f2(s.stderr)}`;
}

function formatEvidence(e: ChoiceEvidence | null): string {
  if (!e) return '(none)';
  return [
    `- this area: ${e.niche.map(formatStat).join('; ')}`,
    `- teams with mean competence ${e.bucket}, any area: ${e.team.map(formatStat).join('; ')}`,
  ].join('\n');
}

/**
 * The leader's structure-choice prompt, showing bank-wide statistics and the retrieved records
 * (neither for zero-shot choice). The structures offered are listed from their descriptors, one
 * `- name: description` line each, in the order given (default: the built-in choosable ones).
 */
export function chooseStructurePrompt(
  persona: string, spec: NicheSpec, teamSize: number, profile: readonly number[], records: readonly LeadershipEntry[], rounds: number,
  evidence: ChoiceEvidence | null = null, structures: readonly StructureDescriptor[] = choosableStructures(),
): ChatMessage[] {
  const values = {
    stats: formatEvidence(evidence),
    teamSize: String(teamSize),
    area: area(spec),
    profile: `anchor ${f2(profile[0] ?? 0)}, complement ${f2(profile[1] ?? 0)}, scout ${f2(profile[2] ?? 0)}`,
    rounds: String(rounds),
    records: records.length ? records.map(formatRecord).join('\n') : '(none yet)',
  };
  const user = renderTemplate(loadTemplate(import.meta.url, 'choose-structure'), {
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
