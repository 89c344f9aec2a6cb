import type { Rng } from '../../core/rng';
import type { TaskGenerator } from '../niche';
import type { GeneratorDescriptor } from './generator';

/**
 * Questions over a generated chronicle of invented events. Level 1: four dated events, asking
 * a year or which came first. Level 2: six events with look-alike names and close years, adding
 * "how many years between". Level 3: dates with days and months, and events placed only relative
 * to others ("12 years after the …"), so answers need arithmetic. Every event sentence starts
 * with "The <event> …", which keeps the passage checkable by a simple parser in the tests.
 */

const KINDS = ['Founding', 'Siege', 'Treaty', 'Great Fire', 'Flood', 'Charter', 'Council', 'Uprising', 'Exhibition', 'Census', 'Coronation', 'Plague'];
const PLACES = ['Varrow', 'Kellmarsh', 'Dunmere', 'Ostrel', 'Halvard', 'Brenmoor', 'Quillon', 'Saltryn', 'Ebberly', 'Morwen', 'Tollingford', 'Ashcombe'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const FILLERS = [
  'Most of what is known comes from the parish archive.',
  'Historians still disagree about the causes of several of these events.',
  'Many of the original letters were lost in a later fire.',
];

/** One event; `anchor` set means the passage gives its year only relative to that event. */
interface Event {
  readonly name: string;
  readonly year: number;
  readonly anchor?: Event;
}

/** A question with its gold answer and same-type alternatives. */
interface Asked {
  readonly question: string;
  readonly answer: string;
  readonly others: readonly (string | number)[];
  readonly aliases?: readonly string[];
}

const int = (rng: Rng, lo: number, hi: number): number => lo + rng.int(hi - lo + 1);

/** Distinct event names; with `lookAlike`, many events share a place or a kind with another. */
function eventNames(rng: Rng, n: number, lookAlike: boolean): string[] {
  const places = rng.shuffle(PLACES).slice(0, lookAlike ? Math.ceil(n / 2) : n);
  const out = new Set<string>();
  while (out.size < n) out.add(`${rng.pick(KINDS)} of ${rng.pick(places)}`);
  return [...out];
}

/** Distinct years; `close` puts some pairs within a few years of each other. */
function years(rng: Rng, n: number, close: boolean): number[] {
  const out = new Set<number>();
  while (out.size < n) {
    const prev = [...out].at(-1);
    out.add(close && prev !== undefined && rng.chance(0.5) ? prev + int(rng, 1, 4) : int(rng, 1600, 1980));
  }
  return [...out];
}

function sentence(rng: Rng, e: Event, withDates: boolean): string {
  if (e.anchor) {
    const gap = Math.abs(e.year - e.anchor.year);
    return `The ${e.name} came ${gap} ${gap === 1 ? 'year' : 'years'} ${e.year > e.anchor.year ? 'after' : 'before'} the ${e.anchor.name}.`;
  }
  if (withDates) return `The ${e.name} took place on ${int(rng, 1, 28)} ${rng.pick(MONTHS)} ${e.year}.`;
  return rng.pick([
    `The ${e.name} took place in ${e.year}.`,
    `The ${e.name} happened in ${e.year}.`,
    `The ${e.name} is dated to ${e.year} in the town records.`,
  ]);
}

/** Which year did one event happen (a span when stated, arithmetic when relative). */
function askYear(rng: Rng, t: Event, all: readonly Event[]): Asked {
  const others: number[] = [];
  if (t.anchor) others.push(t.anchor.year, 2 * t.anchor.year - t.year, t.year + 1, t.year - 1);
  others.push(...rng.shuffle(all.filter((e) => !e.anchor && e !== t)).map((e) => e.year));
  return { question: `In which year did the ${t.name} take place?`, answer: String(t.year), others };
}

function askFirst(rng: Rng, a: Event, b: Event, all: readonly Event[]): Asked {
  const [early, late] = a.year < b.year ? [a, b] : [b, a];
  const rest = rng.shuffle(all.filter((e) => e !== a && e !== b)).map((e) => e.name);
  return { question: `Which happened first: the ${a.name} or the ${b.name}?`, answer: early.name, others: [late.name, ...rest] };
}

function askGap(rng: Rng, a: Event, b: Event, all: readonly Event[]): Asked {
  const gap = Math.abs(a.year - b.year);
  const otherGaps = rng.shuffle(all.filter((e) => e !== a && e !== b)).map((e) => Math.abs(e.year - b.year));
  return {
    question: `How many years passed between the ${a.name} and the ${b.name}?`,
    answer: String(gap),
    others: [gap + 1, gap - 1, ...otherGaps, a.year + b.year - 2 * Math.min(a.year, b.year) + 10].filter((g) => g > 0),
    aliases: [`${gap} years`],
  };
}

/** The pair of events whose years are closest, so "which came first" needs care. */
function closestPair(events: readonly Event[]): [Event, Event] {
  let best: [Event, Event] = [events[0] as Event, events[1] as Event];
  for (const a of events) for (const b of events) {
    if (a !== b && Math.abs(a.year - b.year) < Math.abs(best[0].year - best[1].year)) best = [a, b];
  }
  return best;
}

function build(rng: Rng, level: number): { sentences: string[]; asked: Asked } {
  const n = [0, 4, 6, 7][level] as number;
  const names = eventNames(rng, n, level >= 2);
  const ys = years(rng, n, level >= 2);
  let events: Event[] = names.map((name, i) => ({ name, year: ys[i] as number }));
  if (level === 3) {
    // The last three events are stated relative to one of the first four (one hop each).
    events = events.map((e, i) => (i >= 4 ? { ...e, anchor: events[int(rng, 0, 3)] as Event } : e));
  }
  const sentences = events.map((e) => sentence(rng, e, level === 3));
  sentences.push(...rng.shuffle(FILLERS).slice(0, level === 1 ? 1 : 2));

  const kinds: (() => Asked)[] = [];
  if (level < 3) {
    const [p, q] = rng.shuffle(events) as [Event, Event];
    // From level 2 on, "which first" asks about the two closest years, the easiest pair to confuse.
    const [a, b] = level === 1 ? [p, q] : closestPair(events);
    kinds.push(() => askYear(rng, rng.pick(events), events), () => askFirst(rng, a, b, events));
    if (level === 2) kinds.push(() => askGap(rng, p, q, events));
  } else {
    // Level 3 always asks about an event the passage dates only relatively.
    const r = rng.pick(events.filter((e) => e.anchor));
    const other = rng.pick(events.filter((e) => e !== r && e !== r.anchor));
    kinds.push(() => askYear(rng, r, events), () => askGap(rng, r, other, events), () => askFirst(rng, r, other, events));
  }
  return { sentences: rng.shuffle(sentences), asked: rng.pick(kinds)() };
}

/** Generator for the `timeline-qa` niche: years, order and time spans of invented historical events. */
export const timelineQa: TaskGenerator = (difficulty, rng) => {
  if (![1, 2, 3].includes(difficulty)) {
    throw new RangeError(`timeline-qa: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  }
  const { sentences, asked } = build(rng, difficulty);
  const answer = asked.answer;
  const distractors = [...new Set(asked.others.map(String))].filter((o) => o !== answer).slice(0, 4);
  return {
    difficulty,
    question: `Passage:\n${sentences.join(' ')}\n\nQuestion: ${asked.question}`,
    hidden: { answer, distractors, ...(asked.aliases ? { aliases: asked.aliases } : {}) },
  };
};

/** The `timeline-qa` generator. */
export const timelineQaGenerator: GeneratorDescriptor = { name: 'timeline-qa', generate: timelineQa };
