import type { Ev, StrategyReader } from './signal-analysis';

/** The paper form's mechanism probes from one run's log (docs/signal.md, "Mechanism probes on the paper form"). */
export interface MechanismProbes {
  /** CoDream deliveries routed after the `after`-th task started, and how many were new to their receiver. */
  readonly late: { deliveries: number; newDeliveries: number };
  /**
   * Strategies of a niche each active agent holds (its lessons and stored insights so far, inherited
   * ones included), averaged over agents and the stream's niches, at the end of each part of the stream.
   */
  readonly heldByPart: number[];
}

/**
 * Walk a run's log once: what each agent holds as the simulated world reads text (a child starts with
 * its parents' holdings), which CoDream deliveries after task `after` named a strategy their receiver
 * did not hold, and holdings per agent per niche at the end of each of `parts` parts of the stream.
 */
export function mechanismProbes(events: readonly Ev[], reader: StrategyReader, niches: readonly string[], after = 200, parts = 4): MechanismProbes {
  const held = new Map<string, Set<string>>();
  const active = new Set<string>();
  const insightText = new Map<string, string>();
  const hold = (agent: string) => held.get(agent) ?? held.set(agent, new Set()).get(agent)!;
  const total = events.filter((e) => e.type === 'task.graded').length;
  const cuts = Array.from({ length: parts }, (_, i) => Math.round(((i + 1) * total) / parts));
  const heldByPart: number[] = [];
  const late = { deliveries: 0, newDeliveries: 0 };
  let started = 0;
  let graded = 0;
  const snapshot = () => {
    const per = [...active].flatMap((a) => niches.map((n) => [...hold(a)].filter((p) => scopeOf.get(p) === n).length));
    heldByPart.push(per.length ? per.reduce((x, y) => x + y, 0) / per.length : 0);
  };
  const scopeOf = new Map<string, string>();
  const add = (agent: string, text: string) => {
    for (const s of reader.named(text)) { scopeOf.set(s.phrase, s.scope); hold(agent).add(s.phrase); }
  };
  for (const e of events) {
    switch (e.type) {
      case 'task.started': started++; break;
      case 'task.graded':
        graded++;
        if (cuts.includes(graded) && heldByPart.length < parts) snapshot();
        break;
      case 'agent.spawned':
        held.set(e.agentId, new Set((e.parents ?? []).flatMap((p: string) => [...hold(p)])));
        active.add(e.agentId);
        break;
      case 'agent.retired': active.delete(e.agentId); break;
      case 'lesson.added': add(e.agentId, e.text); break;
      case 'codream.insight': insightText.set(e.insightId, e.text); break;
      case 'insight.routed': {
        const words = insightText.get(e.insightId) ?? '';
        const named = reader.named(words);
        if (started > after) {
          late.deliveries++;
          if (named.some((s) => !hold(e.to).has(s.phrase))) late.newDeliveries++;
        }
        if (e.stored !== false) add(e.to, words);
        break;
      }
    }
  }
  return { late, heldByPart };
}

/** Mean of a paired difference over seeds and its standard error (sd of the differences / √n). */
export function pairedDifference(a: readonly number[], b: readonly number[]): { mean: number; se: number } {
  const d = a.map((x, i) => x - b[i]!);
  const m = d.reduce((x, y) => x + y, 0) / d.length;
  const sd = d.length > 1 ? Math.sqrt(d.reduce((x, y) => x + (y - m) ** 2, 0) / (d.length - 1)) : 0;
  return { mean: m, se: d.length > 1 ? sd / Math.sqrt(d.length) : Number.NaN };
}
