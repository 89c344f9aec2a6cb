import type { Rng } from '../../core/rng';
import type { SimParams } from '../sim-params';
import type { Responder } from './responder';

/** A knob as the prompt's "## Procedure" lists it: `path = value  [bounds] description`. */
interface ListedKnob {
  readonly path: string;
  readonly value: unknown;
  /** Numeric bounds, when the knob is a number. */
  readonly min?: number;
  readonly max?: number;
  readonly integer: boolean;
  /** A list knob's choices (`at least n of a, b, c`). */
  readonly choices?: readonly string[];
  readonly minItems?: number;
}

function readKnobs(text: string): ListedKnob[] {
  const out: ListedKnob[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z0-9_.]+) = (.*?)  \[(.*?)\]/.exec(line);
    if (!m) continue;
    let value: unknown;
    try { value = JSON.parse(m[2]!); } catch { continue; }
    const bounds = m[3]!;
    const num = /^(whole )?number (-?[0-9.]+)\.\.(-?[0-9.]+)$/.exec(bounds);
    const list = /^at least (\d+) of (.*)$/.exec(bounds);
    out.push({
      path: m[1]!, value, integer: num?.[1] !== undefined,
      ...(num ? { min: Number(num[2]), max: Number(num[3]) } : {}),
      ...(list ? { minItems: Number(list[1]), choices: list[2]!.split(', ') } : {}),
    });
  }
  return out;
}

interface Report {
  readonly segment: number;
  readonly overall: { tasks: number; accuracy: number | null };
  readonly trend: { segment: number; accuracy: number | null; procedureVersion: number }[];
  readonly procedureVersion: number;
  readonly structures: Record<string, Record<string, { tasks: number; accuracy: number | null }>>;
  readonly codream: { sessions: number; routed: number; stored: number };
  readonly staleness: { dropped: number };
  readonly fromTask: number;
  readonly toTask: number;
}

const clampTo = (k: ListedKnob, x: number) => {
  const v = Math.min(k.max ?? x, Math.max(k.min ?? x, x));
  return k.integer ? Math.round(v) : Math.round(v * 100) / 100;
};

/**
 * The simulated meta-editor (docs/meta.md, "The simulated meta-editor"). It reads the segment report
 * and the procedure in its prompt, nothing else, and proposes by these rules, in this order (the first
 * that applies):
 * 1. the last edit was followed by a drop in accuracy of more than `metaFlatEpsilon` → revert to the
 *    version before it;
 * 2. a structure whose accuracy over the segment, across niches, is `metaStructureGap` below the
 *    best one's, with at least `metaMinUses` tasks, is still offered → stop offering it (two stay);
 * 3. CoDream ran on more than `metaBusyCoDream` of the tasks and under half of its deliveries were
 *    new to their receivers → raise the failure threshold's bar by lowering it 0.1 (fewer sessions);
 * 4. the staleness policy dropped lessons and tasks run in flight → one fewer in flight;
 * 5. accuracy did not rise by `metaFlatEpsilon` over the previous segment → retrieve one more lesson;
 * otherwise an empty patch. With probability `metaUseless` it instead nudges a knob drawn at random
 * (a useless edit, as a model's meta-edits sometimes are). Whether an edit helps is then up to the
 * world's own mechanisms. The next segment keeps the last one's length.
 */
export const metaResponder: Responder = ({ prompt, params, rng }) => {
  let report: Report;
  try {
    report = JSON.parse(prompt.sections.get('segment report') ?? '') as Report;
  } catch {
    return { text: '{"patch": {}, "rationale": "I could not read the report."}', lengthClass: 'json' };
  }
  const knobs = readKnobs(prompt.sections.get('procedure') ?? '');
  const plan = { tasks: Math.max(1, report.toTask - report.fromTask + 1) };
  const reply = (body: Record<string, unknown>) => ({ text: JSON.stringify({ ...body, plan }), lengthClass: 'json' as const });
  if (rng.chance(params.metaUseless)) {
    const numeric = knobs.filter((k) => k.min !== undefined && typeof k.value === 'number');
    if (numeric.length) {
      const k = numeric[rng.int(numeric.length)]!;
      const step = (k.max! - k.min!) * 0.1 * (rng.chance(0.5) ? 1 : -1);
      return reply({ patch: { [k.path]: clampTo(k, (k.value as number) + step) }, rationale: `Try a different ${k.path}.` });
    }
  }
  return reply(decide(report, knobs, params, rng));
};

function decide(r: Report, knobs: readonly ListedKnob[], p: SimParams, _rng: Rng): Record<string, unknown> {
  const knob = (path: string) => knobs.find((k) => k.path === path);
  const acc = r.overall.accuracy ?? 0;
  const prev = r.trend.at(-1);
  // 1. The last edit hurt: go back.
  if (prev && prev.procedureVersion !== r.procedureVersion && prev.accuracy !== null && acc < prev.accuracy - p.metaFlatEpsilon) {
    return { revert: prev.procedureVersion, rationale: `Accuracy fell from ${prev.accuracy.toFixed(3)} to ${acc.toFixed(3)} after the last edit.` };
  }
  // 2. A structure that keeps losing.
  const offered = knob('team.offered');
  if (offered && Array.isArray(offered.value) && offered.value.length > Math.max(2, offered.minItems ?? 2)) {
    const by = new Map<string, { n: number; sum: number }>();
    for (const niche of Object.values(r.structures)) {
      for (const [s, t] of Object.entries(niche)) {
        if (t.accuracy === null) continue;
        const b = by.get(s) ?? { n: 0, sum: 0 };
        by.set(s, { n: b.n + t.tasks, sum: b.sum + t.accuracy * t.tasks });
      }
    }
    const stats = [...by].filter(([s, b]) => b.n >= p.metaMinUses && (offered.value as string[]).includes(s)).map(([s, b]) => ({ s, acc: b.sum / b.n }));
    if (stats.length >= 2) {
      stats.sort((a, b) => a.acc - b.acc || a.s.localeCompare(b.s));
      const worst = stats[0]!;
      const best = stats.at(-1)!;
      if (best.acc - worst.acc > p.metaStructureGap) {
        return { patch: { 'team.offered': (offered.value as string[]).filter((s) => s !== worst.s) }, rationale: `${worst.s} scored ${worst.acc.toFixed(2)} against ${best.s}'s ${best.acc.toFixed(2)}.` };
      }
    }
  }
  // 3. CoDream busy and mostly redundant.
  const threshold = knob('population.codream.threshold');
  if (threshold && typeof threshold.value === 'number' && r.overall.tasks > 0 && r.codream.sessions / r.overall.tasks > p.metaBusyCoDream && r.codream.stored * 2 < r.codream.routed) {
    const to = clampTo(threshold, threshold.value - 0.1);
    if (to !== threshold.value) return { patch: { 'population.codream.threshold': to }, rationale: 'CoDream runs on most tasks and most of what it routes is not new.' };
  }
  // 4. Stale lessons dropped while several tasks run at once.
  const inFlight = knob('engine.inFlight');
  if (inFlight && typeof inFlight.value === 'number' && inFlight.value > 1 && r.staleness.dropped > 0) {
    return { patch: { 'engine.inFlight': clampTo(inFlight, inFlight.value - 1) }, rationale: `${r.staleness.dropped} lessons were dropped as stale.` };
  }
  // 5. Flat: retrieve more.
  const k = knob('memory.k');
  if (prev && prev.accuracy !== null && acc < prev.accuracy + p.metaFlatEpsilon && k && typeof k.value === 'number') {
    const to = clampTo(k, k.value + 1);
    if (to !== k.value) return { patch: { 'memory.k': to }, rationale: 'Accuracy did not rise: retrieve one more lesson.' };
  }
  return { patch: {}, rationale: 'Keep the procedure.' };
}
