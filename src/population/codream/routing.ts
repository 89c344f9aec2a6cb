import type { Knob } from '../../core/knob';
import type { ArchiveEntry } from '../../individual/archive';
import { competenceOf } from '../../individual/competence';
import type { AgentView } from '../../individual/agent-view';
import { median } from '../specialization';
import type { ExperienceRequest } from '../supervisor-machine';
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
 * Route insights (docs/how-it-works.md). Asymmetric: each insight goes to every active agent whose
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

/** A session's insights with the retrieval key of each (same order). */
export interface KeyedInsights {
  readonly insights: readonly Insight[];
  readonly keys: readonly Float32Array[];
}

/** Where a routed session's insights are filed: the task, and the pool version it started at (provenance). */
export interface RoutingOrigin {
  readonly taskId: string;
  readonly poolVersion: number;
}

/**
 * CoDream's routing step as pool updates: route the insights over the active roster and turn each
 * delivery into an archive entry for its receiver (`<insight>><agent>`; cross-domain insights go
 * to the meta pool), carrying the routing decision so the commit can report it.
 */
export function routeDream(
  session: KeyedInsights, roster: readonly AgentView[], taskNiche: string, c0: number, mode: RoutingMode, origin: RoutingOrigin,
): ExperienceRequest[] {
  return routeInsights(session.insights, roster, taskNiche, c0, mode).map((dl) => {
    const entry: ArchiveEntry = {
      id: `${dl.insight.id}>${dl.to}`, text: dl.insight.text, niche: dl.pool === 'meta' ? null : dl.niche, level: dl.insight.level,
      source: 'codream', taskId: origin.taskId, poolVersion: origin.poolVersion, key: session.keys[session.insights.indexOf(dl.insight)]!,
    };
    return {
      agentId: dl.to, entry,
      routing: {
        insightId: dl.insight.id, authors: dl.insight.authors, level: dl.insight.level, pool: dl.pool,
        niche: dl.niche, competence: dl.competence, median: dl.median,
      },
    };
  });
}

/** Routing's setting a meta-editor may change between segments (the session's own are DREAM_KNOBS, codream.ts). */
export const ROUTING_KNOBS: readonly Knob[] = [
  { kind: 'enum', path: 'population.codream.routing', values: ['asymmetric', 'symmetric'], description: 'insights to below-median agents only, or to everyone' },
];
