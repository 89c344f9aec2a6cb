import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One event of a run's log, read loosely (the bench reads fields by name). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Ev = Record<string, any>;

/** A run's events in log order. */
export function readEvents(runDir: string): Ev[] {
  return readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Ev);
}

const median = (xs: readonly number[]) => {
  if (xs.length === 0) return 0.5;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Mean team reward over each quarter of the stream (graded tasks in stream order). */
export function accuracyByQuarter(events: readonly Ev[], parts = 4): number[] {
  const graded = events.filter((e) => e.type === 'task.graded');
  const size = graded.length / parts;
  return Array.from({ length: parts }, (_, i) => mean(graded.slice(Math.round(i * size), Math.round((i + 1) * size)).map((e) => e.reward as number)));
}

/** Niche → mean reward over the last quarter of the stream (the regret the stream ends with). */
export function lastQuarterPerNiche(events: readonly Ev[]): Record<string, number> {
  const graded = events.filter((e) => e.type === 'task.graded');
  const tail = graded.slice(Math.round((graded.length * 3) / 4));
  const by = new Map<string, number[]>();
  for (const e of tail) by.set(e.niche, [...(by.get(e.niche) ?? []), e.reward]);
  return Object.fromEntries([...by].map(([n, xs]) => [n, mean(xs)]));
}

/** Niche → structure → times chosen. */
export function choicesByNiche(events: readonly Ev[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const e of events.filter((x) => x.type === 'structure.chosen')) {
    const m = (out[e.niche] ??= {});
    m[e.structure] = (m[e.structure] ?? 0) + 1;
  }
  return out;
}

/**
 * How long the niche's best structure (by the fixed-structure oracle) went untried: for each
 * niche, its records in the niche's first half, and the longest run of the niche's tasks
 * during which it was never chosen.
 */
export function lockouts(events: readonly Ev[], best: Readonly<Record<string, string>>): Record<string, { firstHalf: number; of: number; longestGap: number }> {
  const chosen = events.filter((e) => e.type === 'structure.chosen');
  const out: Record<string, { firstHalf: number; of: number; longestGap: number }> = {};
  for (const [niche, s] of Object.entries(best)) {
    const list = chosen.filter((e) => e.niche === niche);
    const half = list.slice(0, Math.floor(list.length / 2));
    let gap = 0;
    let longest = 0;
    for (const e of list) {
      gap = e.structure === s ? 0 : gap + 1;
      longest = Math.max(longest, gap);
    }
    out[niche] = { firstHalf: half.filter((e) => e.structure === s).length, of: half.length, longestGap: longest };
  }
  return out;
}

/** Mean team reward of the bank's records by lifecycle-window-sized slices of the stream (every structure pooled): how much weaker early teams were. */
export function rewardBySlice(events: readonly Ev[], slice = 60): number[] {
  const graded = events.filter((e) => e.type === 'task.graded');
  const out: number[] = [];
  for (let i = 0; i < graded.length; i += slice) out.push(mean(graded.slice(i, i + slice).map((e) => e.reward as number)));
  return out;
}

/** Why a niche's specialist at one lifecycle window was or was not its specialist at the next. */
export type SpecialistFate = 'held' | 'retired' | 'overtaken by a newborn' | 'overtaken' | 'lead below the margin';

/** What happened to specialists between consecutive windows, and what moved the gap. */
export interface SpecialistDynamics {
  /** Windows × niches with a specialist, by what became of it at the next window. */
  readonly fates: Record<SpecialistFate, number>;
  /** Mean over niches of the leader's lead over the runner-up, per window. */
  readonly meanLead: number[];
  /** Over window pairs where the specialist was still active: its mean competence change, and that of the agent second to it. */
  readonly specialistDelta: number;
  readonly runnerUpDelta: number;
  /** CoDream insights routed on the niche between the two windows, per transition: to the specialist, to the runner-up, to anyone. */
  readonly insightsToSpecialist: number;
  readonly insightsToRunnerUp: number;
  readonly insightsOnNiche: number;
  /** Transitions counted (windows × niches with a specialist, last window excluded). */
  readonly transitions: number;
}

/** Leader and runner-up of `niche` in one window's roster (unseen at c0). */
function ranking(roster: readonly Ev[], niche: string, c0: number): { leader: string; lead: number; runnerUp: string | null; c: Map<string, number> } {
  const c = new Map<string, number>(roster.map((a) => [a.agentId as string, (a.competence?.[niche] as number | undefined) ?? c0]));
  const sorted = [...c].sort((a, b) => b[1] - a[1]);
  return { leader: sorted[0]![0], lead: sorted.length > 1 ? sorted[0]![1] - sorted[1]![1] : 0, runnerUp: sorted[1]?.[0] ?? null, c };
}

/**
 * Specialist dynamics from a run's log: at each lifecycle window, each niche's specialist (the
 * `lifecycle.window` event's map), followed to the next window — held, retired (pruned or merged),
 * overtaken by an agent born in between (genesis, fork, merge), overtaken by an agent that was
 * there, or still the leader but by less than the specialist margin — with the competence change
 * of the specialist and of its runner-up, and the CoDream insights routed on the niche in between.
 */
export function specialistDynamics(events: readonly Ev[], c0 = 0.5): SpecialistDynamics {
  const fates: Record<SpecialistFate, number> = { held: 0, retired: 0, 'overtaken by a newborn': 0, overtaken: 0, 'lead below the margin': 0 };
  const windows: Array<{ ev: Ev; routed: Ev[]; born: Set<string>; retired: Set<string> }> = [];
  let routed: Ev[] = [];
  let born = new Set<string>();
  let retired = new Set<string>();
  for (const e of events) {
    if (e.type === 'insight.routed') routed.push(e);
    else if (e.type === 'agent.spawned') born.add(e.agentId);
    else if (e.type === 'agent.retired') retired.add(e.agentId);
    else if (e.type === 'lifecycle.window') {
      windows.push({ ev: e, routed, born, retired });
      routed = [];
      born = new Set();
      retired = new Set();
    }
  }
  // Lifecycle changes are applied after a window's record: they belong to the interval that follows it.
  const meanLead = windows.map((w) => mean(Object.keys(w.ev.specialists ?? {}).map((n) => ranking(w.ev.roster, n, c0).lead)));
  const sd: number[] = [];
  const rd: number[] = [];
  let toSpec = 0;
  let toRunner = 0;
  let onNiche = 0;
  let transitions = 0;
  for (let i = 0; i + 1 < windows.length; i++) {
    const [now, next, after] = [windows[i]!, windows[i + 1]!, windows[i + 2]];
    // Spawns and retirements applied at window i are logged after its record, so they are in window i+1's collection.
    const bornBetween = next.born;
    for (const [niche, s] of Object.entries(now.ev.specialists ?? {})) {
      if (!s) continue;
      transitions++;
      const r0 = ranking(now.ev.roster, niche, c0);
      const r1 = ranking(next.ev.roster, niche, c0);
      const nextSpec = next.ev.specialists?.[niche] ?? null;
      const active = r1.c.has(s as string);
      const fate: SpecialistFate = nextSpec === s ? 'held'
        : !active ? 'retired'
        : r1.leader !== s && bornBetween.has(r1.leader) ? 'overtaken by a newborn'
        : r1.leader !== s ? 'overtaken' : 'lead below the margin';
      fates[fate]++;
      if (active) {
        sd.push(r1.c.get(s as string)! - r0.c.get(s as string)!);
        if (r0.runnerUp && r1.c.has(r0.runnerUp)) rd.push(r1.c.get(r0.runnerUp)! - r0.c.get(r0.runnerUp)!);
      }
      const between = next.routed.filter((e) => e.niche === niche);
      onNiche += between.length;
      toSpec += between.filter((e) => e.to === s).length;
      toRunner += between.filter((e) => e.to === r0.runnerUp).length;
      void after;
    }
  }
  return {
    fates, meanLead, specialistDelta: mean(sd), runnerUpDelta: mean(rd), transitions,
    insightsToSpecialist: transitions ? toSpec / transitions : 0, insightsToRunnerUp: transitions ? toRunner / transitions : 0,
    insightsOnNiche: transitions ? onNiche / transitions : 0,
  };
}

/** Reads which of the simulated world's strategies a text names (the bench's view of knowledge; the run never uses it). */
export interface StrategyReader {
  /** Strategy phrases named in `text`, with their scope (a niche id, `domain:<d>` or `cross`). */
  named(text: string): Array<{ phrase: string; scope: string }>;
  /** The strategy phrases a task needs. */
  required(niche: string, taskId: string, difficulty: number): string[];
  /** The problem family of a task, when the world has them (`taskFamilies`); undefined otherwise. */
  family?(niche: string, taskId: string): number | undefined;
}

/** CoDream by mechanism: sessions and their yield by trigger, and what routed insights brought their receivers. */
export interface CoDreamMechanism {
  readonly tasks: number;
  /** Tasks whose members disagreed (the `task.graded` flag). */
  readonly disagreed: number;
  /** Sessions, insights crystallized and deliveries by trigger (`failure`, `disagreement`, `both`). */
  readonly byTrigger: Record<string, { sessions: number; insights: number; deliveries: number; newDeliveries: number }>;
  /** Deliveries to agents below the niche's median at routing time and to those at or above it. */
  readonly byReceiver: Record<'below median' | 'at or above median', { deliveries: number; newDeliveries: number }>;
  /** Off-niche strategy mentions per retrieval (each member's experience for one task), from lessons and from CoDream entries. */
  readonly offNichePerRetrieval: { lessons: number; codream: number; retrievals: number };
  /**
   * Share of the task's required strategies its retrieved experience names, for members below the
   * niche's median competence at the time and for those at or above it: what the prompt carries.
   */
  readonly coverage: Record<'below median' | 'at or above median', { retrievals: number; coverage: number }>;
}

/**
 * CoDream's mechanism from a run's log. A delivery is *new* to its receiver when the insight names
 * a strategy its archive did not hold (lessons and stored insights so far, inherited ones included:
 * a child starts with its parent's, a merge with both), as the simulated world reads text. Off-niche
 * mentions are what the simulator's `dilution` charges: strategies of another niche named in the
 * experience retrieved for a task.
 */
export function codreamMechanism(events: readonly Ev[], reader: StrategyReader): CoDreamMechanism {
  const archive = new Map<string, Set<string>>();
  const text = new Map<string, string>();
  const insightText = new Map<string, string>();
  const triggerOf = new Map<string, string>();
  const nicheOf = new Map<string, string>();
  const byTrigger: CoDreamMechanism['byTrigger'] = {};
  const byReceiver: CoDreamMechanism['byReceiver'] = { 'below median': { deliveries: 0, newDeliveries: 0 }, 'at or above median': { deliveries: 0, newDeliveries: 0 } };
  const off = { lessons: 0, codream: 0, retrievals: 0 };
  const cover = { 'below median': { retrievals: 0, sum: 0 }, 'at or above median': { retrievals: 0, sum: 0 } };
  const difficultyOf = new Map<string, number>();
  const competence = new Map<string, Record<string, number>>();
  const active = new Set<string>();
  let tasks = 0;
  let disagreed = 0;
  const hold = (agent: string) => archive.get(agent) ?? archive.set(agent, new Set()).get(agent)!;
  const slot = (t: string) => (byTrigger[t] ??= { sessions: 0, insights: 0, deliveries: 0, newDeliveries: 0 });
  for (const e of events) {
    switch (e.type) {
      case 'task.started': nicheOf.set(e.taskId, e.niche); difficultyOf.set(e.taskId, e.difficulty); break;
      case 'task.graded': tasks++; if (e.disagreement) disagreed++; break;
      case 'agent.spawned':
        archive.set(e.agentId, new Set((e.parents ?? []).flatMap((p: string) => [...hold(p)])));
        active.add(e.agentId);
        break;
      case 'agent.retired': active.delete(e.agentId); break;
      case 'competence.updated': (competence.get(e.agentId) ?? competence.set(e.agentId, {}).get(e.agentId)!)[e.niche] = e.competence; break;
      case 'lesson.added':
        text.set(e.entryId, e.text);
        for (const s of reader.named(e.text)) hold(e.agentId).add(s.phrase);
        break;
      case 'codream.session': { triggerOf.set(e.taskId, e.trigger); const t = slot(e.trigger); t.sessions++; t.insights += e.insights ?? 0; break; }
      case 'codream.insight': insightText.set(e.insightId, e.text); break;
      case 'insight.routed': {
        const words = insightText.get(e.insightId) ?? '';
        text.set(`${e.insightId}>${e.to}`, words);
        const known = hold(e.to);
        const fresh = reader.named(words).some((s) => !known.has(s.phrase));
        const t = slot(triggerOf.get(e.taskId) ?? 'unknown');
        const r = byReceiver[e.competence < e.median ? 'below median' : 'at or above median'];
        t.deliveries++;
        r.deliveries++;
        if (fresh) { t.newDeliveries++; r.newDeliveries++; }
        if (e.stored !== false) for (const s of reader.named(words)) known.add(s.phrase);
        break;
      }
      case 'experience.retrieved': {
        const niche = nicheOf.get(e.taskId)!;
        off.retrievals++;
        const carried = new Set<string>();
        for (const id of [...(e.lessons ?? []), ...(e.meta ?? [])] as string[]) {
          const named = reader.named(text.get(id) ?? '');
          for (const s of named) carried.add(s.phrase);
          const n = named.filter((s) => s.scope !== niche && !s.scope.startsWith('domain:') && s.scope !== 'cross').length;
          if (id.includes('>')) off.codream += n;
          else off.lessons += n;
        }
        const of = (id: string) => competence.get(id)?.[niche] ?? 0.5;
        const med = median([...active].map(of));
        const c = cover[of(e.agentId) < med ? 'below median' : 'at or above median'];
        const required = reader.required(niche, e.taskId, difficultyOf.get(e.taskId) ?? 1);
        c.retrievals++;
        c.sum += required.length ? required.filter((p) => carried.has(p)).length / required.length : 0;
        break;
      }
    }
  }
  return {
    tasks, disagreed, byTrigger, byReceiver,
    offNichePerRetrieval: { lessons: off.retrievals ? off.lessons / off.retrievals : 0, codream: off.retrievals ? off.codream / off.retrievals : 0, retrievals: off.retrievals },
    coverage: {
      'below median': { retrievals: cover['below median'].retrievals, coverage: cover['below median'].sum / Math.max(1, cover['below median'].retrievals) },
      'at or above median': { retrievals: cover['at or above median'].retrievals, coverage: cover['at or above median'].sum / Math.max(1, cover['at or above median'].retrievals) },
    },
  };
}

/**
 * The edge an aimed persona gives in the world: after an agent's persona is aimed at a niche
 * (specialize, or genesis for that niche), its own rewards there (`competence.updated`) against
 * every other agent's on the same niche over the same period.
 */
export function aimedEdge(events: readonly Ev[]): { aimed: number; own: number; others: number } {
  const aims: Array<{ agent: string; niche: string; seq: number }> = [];
  for (const e of events) {
    if (e.type === 'agent.persona' && e.niche) aims.push({ agent: e.agentId, niche: e.niche, seq: e.seq });
    const born = e.type === 'agent.spawned' && e.origin === 'genesis' ? /niche (\S+) recurred/.exec(e.reason ?? '') : null;
    if (born) aims.push({ agent: e.agentId, niche: born[1]!, seq: e.seq });
  }
  const own: number[] = [];
  const others: number[] = [];
  for (const e of events) {
    if (e.type !== 'competence.updated') continue;
    for (const a of aims) if (e.seq > a.seq && e.niche === a.niche) (e.agentId === a.agent ? own : others).push(e.reward);
  }
  return { aimed: aims.length, own: mean(own), others: mean(others) };
}

/** Settings of the null model of specialist stability. */
export interface NullModel {
  readonly agents: number;
  readonly windows: number;
  /** Tasks of one niche per lifecycle window. */
  readonly perWindow: number;
  readonly eta: number;
  readonly margin: number;
  readonly minExposure: number;
  readonly stableWindows: number;
  /** Every agent's chance of success on the niche. */
  readonly p: number;
  /** What one agent has on top of `p`. */
  readonly edge: number;
  readonly runs: number;
}

/**
 * Expected stable specialists per niche at the last window when competence is only the EWMA of
 * Bernoulli rewards: each niche task updates its anchor (highest competence), complement (second)
 * and scout (least exposed of the rest), as the assembler roughly does. With `edge` 0 every agent is
 * equal, and what the model counts is noise: the floor the measured count should be read against.
 */
export function nullStableSpecialists(m: NullModel, rng: { next(): number }): number {
  let stable = 0;
  for (let k = 0; k < m.runs; k++) {
    const c = Array<number>(m.agents).fill(0.5);
    const e = Array<number>(m.agents).fill(0);
    const history: number[] = [];
    for (let w = 0; w < m.windows; w++) {
      for (let t = 0; t < m.perWindow; t++) {
        const order = [...c.keys()].sort((a, b) => c[b]! - c[a]! || a - b);
        const scout = order.slice(2).sort((a, b) => e[a]! - e[b]! || a - b)[0];
        for (const i of [order[0]!, order[1]!, ...(scout === undefined ? [] : [scout])]) {
          const r = rng.next() < m.p + (i === 0 ? m.edge : 0) ? 1 : 0;
          c[i] = (1 - m.eta) * c[i]! + m.eta * r;
          e[i]!++;
        }
      }
      const o = [...c.keys()].sort((a, b) => c[b]! - c[a]! || a - b);
      history.push(c[o[0]!]! - c[o[1]!]! >= m.margin - 1e-9 && e[o[0]!]! >= m.minExposure ? o[0]! : -1);
    }
    const last = history[history.length - 1]!;
    if (last >= 0 && history.slice(-m.stableWindows).every((x) => x === last)) stable++;
  }
  return stable / m.runs;
}

/** How fast experience saturates in a run: what agents hold per niche and what their prompts carry, by quarter of the stream. */
export interface Saturation {
  /** Per quarter: mean niche strategies held per (active agent, niche) pair, the share of pairs holding every one, and mean pairwise overlap (Jaccard) of two agents' holdings on a niche. */
  readonly held: { mean: number; full: number; overlap: number }[];
  /** Niche tasks of the stream so far when a pair first held every strategy of its niche: quartiles over the pairs that did, and the share that never did. */
  readonly tasksToFull: { q1: number; median: number; q3: number; never: number; pairs: number };
  /** Per quarter: mean share of a task's required strategies the retrieved experience names, and the share of retrievals that name every one. */
  readonly carried: { mean: number; full: number }[];
  /** Per quarter: the spread of that share between the agents on a niche (best agent's mean − worst's, averaged over niches): the edge experience can give one agent over another. */
  readonly spread: number[];
  /** A member's own reward by the share of required strategies its retrieved experience named (0, up to 1/2, below 1, 1). */
  readonly rewardByCarried: Record<string, { n: number; reward: number }>;
  /**
   * Per quarter: the share of retrieved niche entries (lessons, CoDream insights) learnt on a task of
   * the retrieving task's problem family; NaN when the world has no families (`taskFamilies` 0).
   */
  readonly sameFamily: number[];
}

/** Experience saturation from a run's log, as the simulated world reads text (the bench's view; the run never uses it). */
export function experienceSaturation(events: readonly Ev[], reader: StrategyReader, strategiesPerNiche: number, parts = 4): Saturation {
  const started = events.filter((e) => e.type === 'task.started');
  const quarterOf = new Map(started.map((e, i) => [e.taskId as string, Math.min(parts - 1, Math.floor((i * parts) / started.length))]));
  const nicheOf = new Map(started.map((e) => [e.taskId as string, e.niche as string]));
  const difficultyOf = new Map(started.map((e) => [e.taskId as string, e.difficulty as number]));
  const niches = [...new Set(started.map((e) => e.niche as string))];
  const held = new Map<string, Set<string>>();
  const hold = (a: string, n: string) => held.get(`${a}|${n}`) ?? held.set(`${a}|${n}`, new Set()).get(`${a}|${n}`)!;
  const text = new Map<string, string>();
  const active = new Set<string>();
  const nicheTasks = new Map<string, number>();
  const fullAt = new Map<string, number>();
  const heldQ = Array.from({ length: parts }, () => ({ sum: 0, full: 0, pairs: 0, overlap: 0, overlapPairs: 0 }));
  const carriedQ = Array.from({ length: parts }, () => ({ sum: 0, full: 0, n: 0 }));
  const perAgent = Array.from({ length: parts }, () => new Map<string, { sum: number; n: number }>());
  const carriedOf = new Map<string, number>();
  const byBucket: Record<string, { n: number; reward: number }> = {};
  const bucket = (c: number) => (c === 0 ? 'none' : c <= 0.5 ? 'up to half' : c < 1 ? 'most' : 'all');
  const learntOn = new Map<string, string>();
  const familyQ = Array.from({ length: parts }, () => ({ same: 0, n: 0 }));
  let quarter = 0;
  const snapshot = (q: number) => {
    for (const n of niches) {
      const sets = [...active].map((a) => hold(a, n));
      for (const s of sets) {
        heldQ[q]!.sum += s.size;
        heldQ[q]!.pairs++;
        if (s.size >= strategiesPerNiche) heldQ[q]!.full++;
      }
      for (let i = 0; i < sets.length; i++) for (let j = i + 1; j < sets.length; j++) {
        const u = new Set([...sets[i]!, ...sets[j]!]).size;
        heldQ[q]!.overlap += u ? [...sets[i]!].filter((x) => sets[j]!.has(x)).length / u : 1;
        heldQ[q]!.overlapPairs++;
      }
    }
  };
  for (const e of events) {
    switch (e.type) {
      case 'task.started': {
        const q = quarterOf.get(e.taskId)!;
        while (quarter < q) snapshot(quarter++);
        nicheTasks.set(e.niche, (nicheTasks.get(e.niche) ?? 0) + 1);
        break;
      }
      case 'agent.spawned':
        active.add(e.agentId);
        for (const n of niches) for (const p of (e.parents ?? []) as string[]) for (const s of hold(p, n)) hold(e.agentId, n).add(s);
        break;
      case 'agent.retired': active.delete(e.agentId); break;
      case 'lesson.added': {
        text.set(e.entryId, e.text);
        if (e.taskId) learntOn.set(e.entryId, e.taskId);
        for (const s of reader.named(e.text)) {
          if (!niches.includes(s.scope)) continue;
          const set = hold(e.agentId, s.scope);
          set.add(s.phrase);
          const key = `${e.agentId}|${s.scope}`;
          if (set.size >= strategiesPerNiche && !fullAt.has(key)) fullAt.set(key, nicheTasks.get(s.scope) ?? 0);
        }
        break;
      }
      case 'experience.retrieved': {
        const niche = nicheOf.get(e.taskId)!;
        const required = reader.required(niche, e.taskId, difficultyOf.get(e.taskId) ?? 1);
        const carried = new Set([...(e.lessons ?? []), ...(e.meta ?? [])].flatMap((id: string) => reader.named(text.get(id) ?? '').map((s) => s.phrase)));
        const c = required.length ? required.filter((p) => carried.has(p)).length / required.length : 0;
        const q = quarterOf.get(e.taskId)!;
        carriedQ[q]!.sum += c;
        carriedQ[q]!.n++;
        if (c === 1) carriedQ[q]!.full++;
        const slot = perAgent[q]!.get(`${e.agentId}|${niche}`) ?? perAgent[q]!.set(`${e.agentId}|${niche}`, { sum: 0, n: 0 }).get(`${e.agentId}|${niche}`)!;
        slot.sum += c;
        slot.n++;
        carriedOf.set(`${e.taskId}|${e.agentId}`, c);
        const own = reader.family?.(niche, e.taskId);
        if (own !== undefined) {
          for (const id of (e.lessons ?? []) as string[]) {
            const origin = learntOn.get(id);
            if (origin === undefined || nicheOf.get(origin) !== niche) continue;
            familyQ[q]!.n++;
            if (reader.family!(niche, origin) === own) familyQ[q]!.same++;
          }
        }
        break;
      }
      case 'competence.updated': {
        const c = carriedOf.get(`${e.taskId}|${e.agentId}`);
        if (c === undefined) break;
        const b = (byBucket[bucket(c)] ??= { n: 0, reward: 0 });
        b.n++;
        b.reward += e.reward as number;
        break;
      }
    }
  }
  while (quarter < parts) snapshot(quarter++);
  const pairs = [...held.keys()].filter((k) => niches.includes(k.split('|')[1]!)).length;
  const times = [...fullAt.values()].sort((a, b) => a - b);
  const at = (p: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(p * times.length))]! : NaN);
  return {
    held: heldQ.map((h) => ({ mean: h.sum / Math.max(1, h.pairs), full: h.full / Math.max(1, h.pairs), overlap: h.overlap / Math.max(1, h.overlapPairs) })),
    tasksToFull: { q1: at(0.25), median: at(0.5), q3: at(0.75), never: pairs ? 1 - times.length / pairs : 0, pairs },
    carried: carriedQ.map((c) => ({ mean: c.sum / Math.max(1, c.n), full: c.full / Math.max(1, c.n) })),
    spread: perAgent.map((m) => mean(niches.map((n) => {
      const xs = [...m].filter(([k, v]) => k.endsWith(`|${n}`) && v.n >= 3).map(([, v]) => v.sum / v.n);
      return xs.length > 1 ? Math.max(...xs) - Math.min(...xs) : 0;
    }))),
    rewardByCarried: Object.fromEntries(Object.entries(byBucket).map(([k, v]) => [k, { n: v.n, reward: v.reward / Math.max(1, v.n) }])),
    sameFamily: familyQ.map((f) => (f.n ? f.same / f.n : NaN)),
  };
}
