import { anchorOf } from '../collect/competence-collector';
import type { Section } from '../charts/section';
import type { ReportData } from '../report-data';
import type { LiveFigures } from './live-stats';

const ROLES = ['anchor', 'complement', 'scout'] as const;

/**
 * The pool as it is now: each agent's status, the team roles it has served in (and its last), the
 * niches it anchors (highest competence with exposure, as the report's specialist chart reads it),
 * and where it came from. Active agents first.
 */
export function rosterSection(d: ReportData, f: LiveFigures): Section {
  const anchors = new Map<string, string[]>();
  for (const niche of d.niches) {
    const best = anchorOf(d.competence.final, niche);
    if (best) anchors.set(best.agentId, [...(anchors.get(best.agentId) ?? []), niche]);
  }
  const live = new Map(f.roster.map((r) => [r.agentId, r]));
  const rows = d.agents
    .map((a) => {
      const r = live.get(a.agentId);
      const status = a.retiredAt !== null ? 'retired' : 'active';
      return { status, row: [a.agentId, status, r?.lastRole ?? '–', ...ROLES.map((role) => r?.roles[role] ?? 0), (anchors.get(a.agentId) ?? []).join(', ') || '–', a.parents.length ? `${a.origin} of ${a.parents.join(' + ')}` : a.origin] };
    })
    .sort((x, y) => (x.status === y.status ? 0 : x.status === 'active' ? -1 : 1))
    .map((x) => x.row);
  const active = rows.filter((r) => r[1] === 'active').length;
  return {
    id: 'roster',
    heading: 'Roster',
    intro: 'Who is in the pool now, the roles each agent has served in teams, and the niches it anchors (highest competence among agents that have worked the niche).',
    charts: [],
    notes: rows.length ? [] : ['No agent has been spawned yet.'],
    figures: [{ label: 'active agents', value: String(active) }, { label: 'retired', value: String(rows.length - active) }],
    tables: rows.length ? [{ caption: 'Agents', headers: ['agent', 'status', 'last role', ...ROLES.map((r) => `${r} ×`), 'anchors', 'origin'], rows }] : [],
  };
}
