import type { Rng } from '../../core/rng';
import type { TaskGenerator } from '../niche';
import type { GeneratorDescriptor } from './generator';

/**
 * Reading comprehension over a generated passage about invented people. Level 1: four people,
 * one sentence each. Level 2: six people with look-alike names and organizations, facts split
 * over two sentences. Level 3: organizations located in cities and people who moved, so the
 * question needs two hops (person → organization → city) or the latest of two cities.
 * The gold answer is always a span of the passage; distractors are other spans of the same type.
 */

const FIRST = ['Alven', 'Brisa', 'Corin', 'Dalia', 'Esker', 'Fenna', 'Galen', 'Hollis', 'Ilse', 'Joren', 'Kaia', 'Liesel', 'Maren', 'Nikko', 'Orla', 'Pell'];
const LAST = ['Ashgrove', 'Brackwell', 'Calloway', 'Dunmore', 'Eskridge', 'Fairholt', 'Greaves', 'Hawthorne', 'Ingleby', 'Jessop', 'Kettering', 'Lowther'];
const CITIES = ['Vellmora', 'Tarsk', 'Quennet', 'Halloway', 'Brindle', 'Oskarn', 'Pellucid Bay', 'Marrowick', 'Sundby', 'Corrant', 'Elmstead', 'Ravensholt', 'Kestrel Ford', 'Noxbury', 'Thornwick', 'Aldermoor', 'Gorsefield', 'Lindqvale'];
const ORG_HEADS = ['Bluefen', 'Corrow', 'Thistle', 'Ironmere', 'Saltreach', 'Gallant', 'Mirecourt', 'Wexford'];
const ORG_TAILS = ['Analytics', 'Shipping', 'Press', 'Foundry', 'Museum', 'Clinic', 'Observatory', 'Bakery'];
const ROLES = ['chief engineer', 'archivist', 'treasurer', 'head chef', 'pilot', 'editor', 'curator', 'surveyor', 'librarian', 'lead chemist'];

/** One invented person and the facts the passage states about them. */
interface Person {
  readonly name: string;
  readonly role: string;
  readonly org: string;
  readonly city: string;
  /** Level 3: where they lived before moving to `city`. */
  readonly from: string;
}

/** A question, its gold span and same-type alternatives (near look-alikes first). */
interface Asked {
  readonly question: string;
  readonly answer: string;
  readonly others: readonly string[];
}

const article = (role: string): string => (/^[aeiou]/.test(role) ? 'an' : 'a');

/** Distinct full names; when `lookAlike`, consecutive people share a first or last name. */
function names(rng: Rng, n: number, lookAlike: boolean): string[] {
  const firsts = rng.shuffle(FIRST);
  const lasts = rng.shuffle(LAST);
  return Array.from({ length: n }, (_, i) => {
    if (lookAlike && i % 2 === 1) {
      return rng.chance(0.5) ? `${firsts[i - 1]} ${lasts[i]}` : `${firsts[i]} ${lasts[i - 1]}`;
    }
    return `${firsts[i]} ${lasts[i]}`;
  });
}

/** Distinct organization names; when `lookAlike`, pairs share their first word. */
function orgs(rng: Rng, n: number, lookAlike: boolean): string[] {
  const heads = rng.shuffle(ORG_HEADS);
  const tails = rng.shuffle(ORG_TAILS);
  return Array.from({ length: n }, (_, i) => `${heads[lookAlike ? Math.floor(i / 2) : i]} ${tails[i]}`);
}

function people(rng: Rng, n: number, nOrgs: number, lookAlike: boolean): Person[] {
  const ns = names(rng, n, lookAlike);
  const os = orgs(rng, nOrgs, lookAlike);
  const roles = rng.shuffle(ROLES);
  const cities = rng.shuffle(CITIES);
  // Roles are distinct, so (role, organization) always names exactly one person.
  return ns.map((name, i) => ({
    name,
    role: roles[i] as string,
    org: os[i % nOrgs] as string,
    city: cities[i] as string,
    from: cities[n + i] as string,
  }));
}

const others = (ps: readonly Person[], target: Person, key: keyof Person): string[] =>
  [...new Set(ps.filter((p) => p !== target).map((p) => p[key]))].filter((v) => v !== target[key]);

function level1(rng: Rng): { sentences: string[]; asked: Asked } {
  const ps = people(rng, 4, 4, false);
  const sentences = ps.map((p) => `${p.name} works as ${article(p.role)} ${p.role} at ${p.org} in ${p.city}.`);
  sentences.push(`Everyone in the group met at a conference in ${rng.pick(CITIES.filter((c) => !ps.some((p) => p.city === c)))}.`);
  const t = rng.pick(ps);
  const asked = rng.pick<Asked>([
    { question: `Who works as the ${t.role} at ${t.org}?`, answer: t.name, others: others(ps, t, 'name') },
    { question: `In which city does ${t.name} work?`, answer: t.city, others: others(ps, t, 'city') },
    { question: `Which organization does ${t.name} work for?`, answer: t.org, others: others(ps, t, 'org') },
  ]);
  return { sentences: rng.shuffle(sentences), asked };
}

function level2(rng: Rng): { sentences: string[]; asked: Asked } {
  const ps = people(rng, 6, 6, true);
  const sentences: string[] = [];
  for (const p of ps) {
    sentences.push(`${p.name} is ${article(p.role)} ${p.role} at ${p.org}.`);
    if (sentences.length < 10) sentences.push(`${p.name} lives in ${p.city}.`);
  }
  // Only people whose city was stated can be asked about it.
  const t = rng.pick(ps.slice(0, 4));
  const twin = ps[ps.indexOf(t) ^ 1] as Person;
  const near = (key: keyof Person): string[] => [...new Set([twin[key], ...others(ps.slice(0, 4), t, key)])].filter((v) => v !== t[key]);
  const asked = rng.pick<Asked>([
    { question: `Who is the ${t.role} at ${t.org}?`, answer: t.name, others: near('name') },
    { question: `Where does ${t.name} live?`, answer: t.city, others: near('city') },
    { question: `Which organization employs ${t.name}?`, answer: t.org, others: near('org') },
  ]);
  return { sentences: rng.shuffle(sentences), asked };
}

function level3(rng: Rng): { sentences: string[]; asked: Asked } {
  const ps = people(rng, 6, 3, true);
  const hq = new Map<string, string>();
  const hqCities = rng.shuffle(CITIES.filter((c) => !ps.some((p) => p.city === c || p.from === c)));
  ps.slice(0, 3).forEach((p, i) => hq.set(p.org, hqCities[i] as string));
  const sentences = [...hq].map(([org, city]) => `${org} is headquartered in ${city}.`);
  for (const p of ps) {
    sentences.push(`${p.name}, who grew up in ${p.from} and now lives in ${p.city}, joined ${p.org} as ${article(p.role)} ${p.role}.`);
  }
  const t = rng.pick(ps);
  const home = hq.get(t.org) as string;
  const otherHqs = [...hq.values()].filter((c) => c !== home);
  const asked = rng.pick<Asked>([
    { question: `In which city is the organization that ${t.name} joined headquartered?`, answer: home, others: [...otherHqs, t.city, t.from] },
    { question: `In which city does ${t.name} live now?`, answer: t.city, others: [t.from, ...others(ps, t, 'city')] },
    {
      question: `Who is the ${t.role} at the organization headquartered in ${home}?`,
      answer: t.name,
      others: others(ps.filter((p) => p.org === t.org), t, 'name').concat(others(ps, t, 'name')),
    },
  ]);
  return { sentences: rng.shuffle(sentences), asked };
}

const BY_LEVEL: Record<number, (rng: Rng) => { sentences: string[]; asked: Asked }> = { 1: level1, 2: level2, 3: level3 };

/** Generator for the `people-qa` niche: a question about invented people answered by a span of the passage. */
export const peopleQa: TaskGenerator = (difficulty, rng) => {
  const build = BY_LEVEL[difficulty];
  if (!build) throw new RangeError(`people-qa: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  const { sentences, asked } = build(rng);
  const distractors = [...new Set(asked.others)].filter((o) => o !== asked.answer).slice(0, 4);
  return {
    difficulty,
    question: `Passage:\n${sentences.join(' ')}\n\nQuestion: ${asked.question}`,
    hidden: { answer: asked.answer, distractors },
  };
};

/** The `people-qa` generator. */
export const peopleQaGenerator: GeneratorDescriptor = { name: 'people-qa', generate: peopleQa };
