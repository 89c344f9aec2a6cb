import type { Rng } from '../../core/rng';
import type { Responder } from './responder';

/**
 * The structures the prompt offers, in the order listed: the `- name: description` lines under
 * "Structures you can use:". The simulator knows no structure of its own; it reads what a real
 * model would read.
 */
export function offeredStructures(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.trim() === 'Structures you can use:');
  if (from < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(from + 1)) {
    const m = /^- ([a-z][a-z0-9-]*): /.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}

/** `a|b|c` of the offered names, for the record and statistics patterns (names are `[a-z0-9-]`, nothing to escape). */
const alternation = (names: readonly string[]) => names.join('|');

type Tally = { n: number; mean: number };

/**
 * Read a statistics line of the prompt into structure → (count, mean); null when the line is
 * absent. A count is of tasks (`formatStat`: `debate 12 tasks, mean 0.71, 95% CI 0.45-0.88`) or,
 * on the prior's line, of areas (`formatPrior`: `debate 3 areas, mean 0.55, range 0.40-0.78`);
 * what follows the mean is not read.
 */
function readStats(text: string, prefix: string, names: readonly string[]): Map<string, Tally> | null {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  if (!line) return null;
  const stat = new RegExp(`(${alternation(names)}) (\\d+) (?:tasks?|areas?)(?:, mean ([0-9.]+))?`, 'g');
  const out = new Map<string, Tally>(names.map((s) => [s, { n: 0, mean: 0.5 }]));
  for (const m of line.matchAll(stat)) out.set(m[1]!, { n: Number(m[2]), mean: m[3] ? Number(m[3]) : 0.5 });
  return out;
}

/** Read the nearest records the prompt lists into structure → (count, mean). */
function readRecords(text: string, names: readonly string[]): Map<string, Tally> {
  const record = new RegExp(`;\\s*(${alternation(names)});\\s*reward\\s*([0-9.]+)`);
  const sums = new Map<string, { n: number; sum: number }>(names.map((s) => [s, { n: 0, sum: 0 }]));
  for (const line of text.split('\n')) {
    const m = record.exec(line);
    if (!m) continue;
    const st = sums.get(m[1]!)!;
    st.n += 1;
    st.sum += Number(m[2]);
  }
  return new Map([...sums].map(([k, v]) => [k, { n: v.n, mean: v.n ? v.sum / v.n : 0.5 }]));
}

/**
 * Answers a structure-choice prompt from the evidence it shows, as a leader reading it would,
 * choosing among the structures the prompt lists (`offeredStructures`).
 * With bank statistics: each structure's niche mean, shrunk towards its prior (the prompt's prior
 * line: its mean over other areas, or, in the older format, for similar teams; itself shrunk
 * towards 0.5 by one unit of its count) with weight `leaderPrior` records, plus an exploration bonus
 * `leaderExplore`/√(1+n) that shrinks as the niche's evidence n grows, plus `leaderNoise`. Without
 * statistics it reads the listed records the same way; with neither, a uniform pick.
 */
export const chooseResponder: Responder = ({ prompt, params, rng }) => {
  const text = prompt.sections.get('choose a structure') ?? '';
  const names = offeredStructures(text);
  // Nothing offered: nothing to choose, so the reply names none (the caller falls back).
  if (names.length === 0) return { text: 'No structure is listed to choose from.', lengthClass: 'json' };
  const niche = readStats(text, '- this area:', names) ?? readRecords(text, names);
  const priors = readStats(text, '- prior, other areas:', names) ?? readStats(text, '- teams with', names);
  const any = [...niche.values()].some((s) => s.n > 0) || [...(priors?.values() ?? [])].some((s) => s.n > 0);
  const score = (name: string) => {
    const nn = niche.get(name)!;
    const t = priors?.get(name) ?? { n: 0, mean: 0.5 };
    const prior = (t.n * t.mean + 0.5) / (t.n + 1);
    const post = (nn.n * nn.mean + params.leaderPrior * prior) / (nn.n + params.leaderPrior);
    return post + params.leaderExplore / Math.sqrt(1 + nn.n) + params.leaderNoise * rng.normal();
  };
  const best = any
    ? names.map((name) => ({ name, v: score(name) })).reduce((a, b) => (b.v > a.v ? b : a)).name
    : rng.pick(names);
  const structure = any ? retried(best, names, niche, params.leaderRetry, rng) : best;
  if (rng.chance(params.malformed)) return { text: 'Any of these could work here.', lengthClass: 'json' };
  const s = niche.get(structure)!;
  const why = s.n ? `${structure} averaged ${s.mean.toFixed(2)} over ${s.n} tasks in this area` : `${structure} has little evidence in this area yet`;
  return { text: JSON.stringify({ structure, why }), lengthClass: 'json' };
};

/**
 * An LLM leader does not hold one early failure against a structure for good: with chance
 * `leaderRetry` it gives the offered structure with the fewest records in this area another try
 * (the first such in the order offered; itself when it already has the fewest). No draw at 0.
 */
function retried(best: string, names: readonly string[], niche: ReadonlyMap<string, Tally>, leaderRetry: number, rng: Rng): string {
  if (leaderRetry <= 0 || !rng.chance(leaderRetry)) return best;
  return names.reduce((a, b) => (niche.get(b)!.n < niche.get(a)!.n ? b : a));
}

/** Answers a leadership-note prompt with one line read off the reward it shows. */
export const noteResponder: Responder = ({ prompt }) => {
  const text = prompt.sections.get('leadership note') ?? '';
  const structure = /using ([\w-]+)/.exec(text)?.[1] ?? 'this structure';
  // `Team reward: 1.00.`: the number, not the sentence's full stop (which made every note say "failed").
  const reward = Number(/Team reward: (\d+(?:\.\d+)?)/.exec(text)?.[1] ?? 0);
  const disagreed = /disagreed: yes/.test(text);
  const line = reward >= 0.5
    ? `${structure} worked${disagreed ? ' despite disagreement' : ''}: the team reached a good answer.`
    : `${structure} failed${disagreed ? '; members disagreed and the wrong view won' : ': the team converged on a wrong answer'}.`;
  return { text: line, lengthClass: 'json' };
};
