import { competenceOf } from '../../individual/competence';
import type { AgentView } from '../../individual/agent-view';
import { median } from '../specialization';
import type { Insight } from './codream';

/** How insights reach agents: below-median only (EvoChamber), or everyone (the symmetric ablation). */
export type RoutingMode = 'asymmetric' | 'symmetric';

/** One delivery of one insight to one agent. */
export interface Delivery {
  readonly insight: Insight;
  readonly to: string;
  /** Niche bucket, or the meta pool for cross-domain insights. */
  readonly pool: 'niche' | 'meta';
  /** The niche whose competence decided the routing. */
  readonly niche: string;
  readonly competence: number;
  readonly median: number;
}

/**
 * Route insights (DESIGN.md section 5). Asymmetric: each insight goes to every active agent whose
 * competence on the insight's niche (the task's niche for cross-domain insights) is strictly
 * below the pool median — never to agents at or above it; strong agents produce, weak ones
 * consume. Cross-domain insights go to the recipients' meta pools. Symmetric: to every agent.
 */
export function routeInsights(insights: readonly Insight[], roster: readonly AgentView[], taskNiche: string, c0: number, mode: RoutingMode): Delivery[] {
  const out: Delivery[] = [];
  for (const insight of insights) {
    const niche = insight.niche ?? taskNiche;
    const comps = roster.map((a) => competenceOf(a, niche, c0));
    const med = comps.length ? median(comps) : 0;
    roster.forEach((a, i) => {
      if (mode === 'asymmetric' && !(comps[i]! < med)) return;
      out.push({ insight, to: a.id, pool: insight.level === 'cross-domain' ? 'meta' : 'niche', niche, competence: comps[i]!, median: med });
    });
  }
  return out;
}
