import type { Responder } from './responder';

const STRUCTURES = ['voting', 'debate', 'generator-critic', 'decompose'];
const RECORD = /;\s*(voting|debate|generator-critic|decompose);\s*reward\s*([0-9.]+)/;

/** One structure's statistics as printed in the choice prompt (`formatStat`): `debate 12 tasks, mean 0.71 ± 0.08`. */
const STAT = /(voting|debate|generator-critic|decompose) (\d+) tasks(?:, mean ([0-9.]+))?/g;

type Tally = { n: number; mean: number };

/** Read a statistics line of the prompt into structure → (count, mean); null when the line is absent. */
function readStats(text: string, prefix: string): Map<string, Tally> | null {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  if (!line) return null;
  const out = new Map<string, Tally>(STRUCTURES.map((s) => [s, { n: 0, mean: 0.5 }]));
  for (const m of line.matchAll(STAT)) out.set(m[1]!, { n: Number(m[2]), mean: m[3] ? Number(m[3]) : 0.5 });
  return out;
}

/** Read the nearest records the prompt lists into structure → (count, mean). */
function readRecords(text: string): Map<string, Tally> {
  const sums = new Map<string, { n: number; sum: number }>(STRUCTURES.map((s) => [s, { n: 0, sum: 0 }]));
  for (const line of text.split('\n')) {
    const m = RECORD.exec(line);
    if (!m) continue;
    const st = sums.get(m[1]!)!;
    st.n += 1;
    st.sum += Number(m[2]);
  }
  return new Map([...sums].map(([k, v]) => [k, { n: v.n, mean: v.n ? v.sum / v.n : 0.5 }]));
}

/**
 * Answers a structure-choice prompt from the evidence it shows, as a leader reading it would.
 * With bank statistics: each structure's niche mean, shrunk towards its mean for similar teams
 * (itself shrunk towards 0.5) with weight `leaderPrior` records, plus an exploration bonus
 * `leaderExplore`/√(1+n) that shrinks as the niche's evidence n grows, plus `leaderNoise`. Without
 * statistics it reads the listed records the same way; with neither, a uniform pick.
 */
export const chooseResponder: Responder = ({ prompt, params, rng }) => {
  const text = prompt.sections.get('choose a structure') ?? '';
  const niche = readStats(text, '- this area:') ?? readRecords(text);
  const team = readStats(text, '- teams with');
  const any = [...niche.values()].some((s) => s.n > 0) || [...(team?.values() ?? [])].some((s) => s.n > 0);
  const score = (name: string) => {
    const nn = niche.get(name)!;
    const t = team?.get(name) ?? { n: 0, mean: 0.5 };
    const prior = (t.n * t.mean + 0.5) / (t.n + 1);
    const post = (nn.n * nn.mean + params.leaderPrior * prior) / (nn.n + params.leaderPrior);
    return post + params.leaderExplore / Math.sqrt(1 + nn.n) + params.leaderNoise * rng.normal();
  };
  const structure = any
    ? STRUCTURES.map((name) => ({ name, v: score(name) })).reduce((a, b) => (b.v > a.v ? b : a)).name
    : rng.pick(STRUCTURES);
  if (rng.chance(params.malformed)) return { text: 'Any of these could work here.', lengthClass: 'json' };
  const s = niche.get(structure)!;
  const why = s.n ? `${structure} averaged ${s.mean.toFixed(2)} over ${s.n} tasks in this area` : `${structure} has little evidence in this area yet`;
  return { text: JSON.stringify({ structure, why }), lengthClass: 'json' };
};

/** Answers a leadership-note prompt with one line read off the reward it shows. */
export const noteResponder: Responder = ({ prompt }) => {
  const text = prompt.sections.get('leadership note') ?? '';
  const structure = /using ([\w-]+)/.exec(text)?.[1] ?? 'this structure';
  const reward = Number(/Team reward: ([0-9.]+)/.exec(text)?.[1] ?? 0);
  const disagreed = /disagreed: yes/.test(text);
  const line = reward >= 0.5
    ? `${structure} worked${disagreed ? ' despite disagreement' : ''}: the team reached a good answer.`
    : `${structure} failed${disagreed ? '; members disagreed and the wrong view won' : ': the team converged on a wrong answer'}.`;
  return { text: line, lengthClass: 'json' };
};
