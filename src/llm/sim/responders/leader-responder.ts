import type { Responder } from './responder';

const STRUCTURES = ['voting', 'debate', 'generator-critic', 'decompose'];
const RECORD = /;\s*(voting|debate|generator-critic|decompose);\s*reward\s*([0-9.]+)/;

/**
 * Answers a structure-choice prompt from the records it shows, as a leader reading them would:
 * each structure scores its mean reward in the records plus an exploration bonus
 * c/√(1+n) (untried structures 0.5 + c), with a little noise. No records: a uniform pick.
 */
export const chooseResponder: Responder = ({ prompt, params, rng }) => {
  const text = prompt.sections.get('choose a structure') ?? '';
  const stats = new Map<string, { n: number; sum: number }>(STRUCTURES.map((s) => [s, { n: 0, sum: 0 }]));
  for (const line of text.split('\n')) {
    const m = RECORD.exec(line);
    if (!m) continue;
    const st = stats.get(m[1]!)!;
    st.n += 1;
    st.sum += Number(m[2]);
  }
  const any = [...stats.values()].some((s) => s.n > 0);
  let structure: string;
  if (!any) structure = rng.pick(STRUCTURES);
  else {
    const score = (s: { n: number; sum: number }) =>
      (s.n ? s.sum / s.n : 0.5) + params.leaderExplore / Math.sqrt(1 + s.n) + params.leaderNoise * rng.normal();
    structure = [...stats].map(([name, s]) => ({ name, v: score(s) })).reduce((a, b) => (b.v > a.v ? b : a)).name;
  }
  if (rng.chance(params.malformed)) return { text: 'Any of these could work here.', lengthClass: 'json' };
  const s = stats.get(structure)!;
  const why = s.n ? `${structure} averaged ${(s.sum / s.n).toFixed(2)} over ${s.n} similar records` : `${structure} has not been tried on similar tasks yet`;
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
