import { parseJsonLoose } from '../../llm/parse-json';
import type { Proposal } from './codream-prompts';

/** An insight's generality. */
export type InsightLevel = 'task-local' | 'subdomain' | 'cross-domain';

/** A crystallized insight as parsed (before ids and routing). */
export interface ParsedInsight {
  readonly text: string;
  readonly level: InsightLevel;
  /** Niche scope; null for cross-domain. */
  readonly niche: string | null;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** `{"diagnosis"}` or `{"delta"}` → the text; falls back to the reply's prose. */
export function parseField(text: string, field: string): string {
  const parsed = parseJsonLoose(text) as Record<string, unknown> | undefined;
  return str(parsed?.[field]) ?? text.trim().slice(0, 500);
}

/** `{"proposals": [{strategy, niches}]}`; unusable items are dropped. Caps the list. */
export function parseProposals(text: string, taskNiche: string, max = 6): Proposal[] {
  const parsed = parseJsonLoose(text) as { proposals?: unknown } | undefined;
  if (!Array.isArray(parsed?.proposals)) return [];
  const out: Proposal[] = [];
  for (const p of parsed.proposals as unknown[]) {
    const o = p as { strategy?: unknown; niches?: unknown };
    const strategy = str(o?.strategy);
    if (!strategy) continue;
    const niches = Array.isArray(o.niches) ? (o.niches as unknown[]).map(str).filter((n): n is string => n !== null) : [];
    out.push({ strategy, niches: niches.length ? niches : [taskNiche] });
  }
  return out.slice(0, max);
}

/** `{"keep": [1-based], "drop": [...]}` → the 0-based indices voted to keep, or null if unusable (abstain). */
export function parseDebateVote(text: string, count: number): Set<number> | null {
  const parsed = parseJsonLoose(text) as { keep?: unknown } | undefined;
  if (!Array.isArray(parsed?.keep)) return null;
  return new Set((parsed.keep as unknown[]).map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= count).map((n) => n - 1));
}

const LEVELS: readonly InsightLevel[] = ['task-local', 'subdomain', 'cross-domain'];

/**
 * `{"insights": [{text, level, niche}]}` validated: unknown levels become `subdomain`; a
 * non-cross-domain insight's niche is one of `niches` or else the task's niche; cross-domain has no niche.
 */
export function parseInsights(text: string, taskNiche: string, niches: ReadonlySet<string>): ParsedInsight[] {
  const parsed = parseJsonLoose(text) as { insights?: unknown } | undefined;
  if (!Array.isArray(parsed?.insights)) return [];
  const out: ParsedInsight[] = [];
  for (const i of parsed.insights as unknown[]) {
    const o = i as { text?: unknown; level?: unknown; niche?: unknown };
    const t = str(o?.text);
    if (!t) continue;
    const raw = str(o.level)?.toLowerCase() ?? '';
    const level = (LEVELS.find((l) => l === raw) ?? 'subdomain') as InsightLevel;
    const n = str(o.niche);
    out.push({ text: t, level, niche: level === 'cross-domain' ? null : n && niches.has(n) ? n : taskNiche });
  }
  return out;
}
