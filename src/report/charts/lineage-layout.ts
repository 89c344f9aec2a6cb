import type { ReportAgent, ReportData } from '../report-data';

/** An agent's lifeline: from spawn to retirement (or the run's end), on its lane. */
export interface Lifeline {
  readonly agentId: string;
  readonly lane: number;
  readonly start: number;
  readonly end: number;
  readonly origin: string;
  readonly retired: boolean;
}

/** A parent → child link, drawn at the child's spawn time. */
export interface LineageEdge {
  readonly parent: string;
  readonly child: string;
  readonly at: number;
  readonly origin: string;
  readonly reason: string;
}

/** A point event on a lifeline: spawn, retirement or persona rewrite, with its recorded reason. */
export interface LineageMark {
  readonly agentId: string;
  readonly at: number;
  readonly kind: string;
  readonly reason: string;
}

/** The computed family-tree layout: lanes in depth-first order, so children sit right under their parent. */
export interface LineageLayout {
  readonly order: string[];
  readonly lifelines: Lifeline[];
  readonly edges: LineageEdge[];
  readonly marks: LineageMark[];
}

/**
 * Lay out the roster as a family tree over time: one lane per agent, ordered depth-first from the
 * roots (agents without known parents) so that each child is placed under its first parent.
 */
export function layoutLineage(d: ReportData): LineageLayout {
  const byId = new Map(d.agents.map((a) => [a.agentId, a]));
  const children = new Map<string, ReportAgent[]>();
  const roots: ReportAgent[] = [];
  for (const a of d.agents) {
    const parent = a.parents.find((p) => byId.has(p) && p !== a.agentId);
    if (parent === undefined) roots.push(a);
    else children.set(parent, [...(children.get(parent) ?? []), a]);
  }
  const order: string[] = [];
  const visit = (a: ReportAgent) => {
    if (order.includes(a.agentId)) return;
    order.push(a.agentId);
    for (const c of children.get(a.agentId) ?? []) visit(c);
  };
  roots.forEach(visit);
  // Agents caught in a parent cycle (a malformed log) still get a lane.
  d.agents.forEach(visit);

  const end = d.run.tasksDone;
  const lifelines = order.map((id, lane) => {
    const a = byId.get(id)!;
    return { agentId: id, lane, start: a.spawnedAt, end: a.retiredAt ?? end, origin: a.origin, retired: a.retiredAt !== null };
  });
  const edges = d.agents.flatMap((a) => a.parents.filter((p) => byId.has(p)).map((parent) => ({
    parent, child: a.agentId, at: a.spawnedAt, origin: a.origin, reason: a.reason ?? `${a.origin} of ${a.parents.join(' + ')}`,
  })));
  const marks: LineageMark[] = [
    ...d.agents.map((a) => ({ agentId: a.agentId, at: a.spawnedAt, kind: a.origin, reason: a.reason ?? (a.origin === 'seed' ? 'seed agent from the scenario' : 'no reason recorded') })),
    ...d.lineage.retirements.map((r) => ({
      agentId: r.agentId, at: r.tasksSeen, kind: 'retired', reason: `${r.reason}${r.successor ? ` (successor ${r.successor})` : ''}`,
    })),
    ...d.lineage.personas.map((p) => ({ agentId: p.agentId, at: p.tasksSeen, kind: 'persona', reason: p.reason })),
  ];
  return { order, lifelines, edges, marks };
}

/** Whether the roster changed at all (otherwise the lineage is just the seed agents). */
export function rosterChanged(d: ReportData): boolean {
  return d.agents.some((a) => a.origin !== 'seed') || d.lineage.retirements.length > 0
    || d.lineage.personas.length > 0 || d.lineage.decisions.length > 0;
}
