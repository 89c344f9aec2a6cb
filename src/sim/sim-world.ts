import { createRng } from '../core/rng';
import { hash32 } from '../core/hash';
import type { SimParams } from './sim-params';

/** A latent strategy: knowledge that helps when its phrase is in the prompt. */
export interface Strategy {
  /** The exact phrase that carries the strategy in text, e.g. "lattice-ledger pass". */
  readonly phrase: string;
  /** What the strategy says to do; rendered after the phrase in lessons. */
  readonly gloss: string;
  /** Whose it is: a niche id, `domain:<name>` or `cross`. */
  readonly scope: string;
}

// Invented words, so a strategy phrase never occurs in a task or a persona by accident.
const STEMS = [
  'lattice', 'ledger', 'pivot', 'mirror', 'anchor', 'cascade', 'prism', 'harbor', 'tandem', 'keystone',
  'quarry', 'meridian', 'vortex', 'trellis', 'compass', 'beacon', 'crucible', 'delta', 'ember', 'fulcrum',
  'gyre', 'helix', 'isthmus', 'jetty', 'kiln', 'lodestar', 'mosaic', 'nexus', 'orbit', 'plinth',
  'quiver', 'rampart', 'sextant', 'tessera', 'umbra', 'vellum', 'warp', 'zenith', 'bramble', 'cinder',
];
const FORMS = ['pass', 'sweep', 'check', 'split', 'audit', 'probe', 'frame', 'sieve', 'ladder', 'fold'];
const GLOSSES = [
  'rewrite every quantity in one form before combining anything',
  'work backwards from what is asked and list what it depends on',
  'test the candidate on the smallest and the largest case first',
  'name each intermediate result and check it against the statement',
  'split the problem at its natural seam and solve the halves separately',
  'look for the one detail that distinguishes this case from the common one',
  'track units and boundaries explicitly through every step',
  'compare the result with a rough estimate before committing',
  'enumerate the edge cases the statement implies but does not say',
  'locate the exact sentence that supports the answer and quote it',
  'keep a running table of the entities and their attributes',
  'recompute the final step a second way and make both agree',
];

// Words of the problem-type cues a task's text shows under `taskFamilies`: invented like the
// strategy stems and disjoint from them, so a cue never names a strategy.
const CUE_WORDS = [
  'alder', 'basalt', 'cobalt', 'dunlin', 'fjord', 'garnet', 'heathrow', 'indigo', 'juniper', 'kestrel',
  'lagoon', 'marram', 'nettle', 'ochre', 'pewter', 'quartz', 'russet', 'saffron', 'tundra', 'umberly',
  'verdigris', 'wicker', 'yarrow', 'zephyr', 'bracken', 'corbel', 'drumlin', 'esker', 'flintlock', 'gimbal',
];
/** Words in one family's cue. */
const CUE_LENGTH = 6;
/** How a task's text shows its family: this line before the problem, then the cue's words. */
const CUE_LINE = 'Problem type:';
const CUE_PATTERN = /Problem type: ([a-z]+(?: [a-z]+)*)\./;

/**
 * `n` of `pool` without replacement, item i with weight 1/(i+1)^exponent (Efraimidis–Spirakis keys
 * u^(1/w), the largest n): the first items common, the last rare.
 */
function zipfSample<T>(pool: readonly T[], n: number, exponent: number, rng: { next(): number }): T[] {
  const keyed = pool.map((s, i) => ({ s, key: Math.log(Math.max(rng.next(), 1e-12)) * (i + 1) ** exponent }));
  return keyed.sort((a, b) => b.key - a.key).slice(0, n).map((k) => k.s);
}

/**
 * The simulated world: latent strategies per niche, per domain and across domains, and which of
 * them each task needs. Pure functions of (world seed, niche id, domain, task id): the same
 * inputs always give the same world, whatever order niches are first seen in.
 */
export class SimWorld {
  private readonly byScope = new Map<string, Strategy[]>();
  private readonly used = new Map<string, string>();
  private readonly all: Strategy[] = [];
  /**
   * Each strategy under the text before its phrase's first '-' (every phrase has one), and the
   * lengths of those heads: where a phrase occurs in a text, that '-' does, so `mentioned` looks
   * only at the text's '-'s instead of searching it once per strategy.
   */
  private readonly byHead = new Map<string, Strategy[]>();
  private readonly headLengths: number[] = [];
  /** Per niche: its families' cues, in family order (`taskFamilies`). */
  private readonly cues = new Map<string, string[]>();
  private readonly familyOrders = new Map<string, Strategy[]>();

  /** `forNiche`: a niche's own parameters (a world file's per-niche overrides); the global ones by default. */
  constructor(
    private readonly seed: number,
    private readonly params: SimParams,
    private readonly forNiche: (niche: string) => SimParams = () => params,
  ) {
    this.scope('cross', params.crossDomainStrategies);
  }

  /** Strategies of a niche (created on first use). */
  nicheStrategies(niche: string): readonly Strategy[] {
    return this.scope(niche, this.forNiche(niche).strategiesPerNiche);
  }

  /** Shared strategies of a domain. */
  domainStrategies(domain: string): readonly Strategy[] {
    return this.scope(`domain:${domain}`, this.params.strategiesPerDomain);
  }

  /** Strategies that help in every domain. */
  crossStrategies(): readonly Strategy[] {
    return this.scope('cross', this.params.crossDomainStrategies);
  }

  /** Techniques of a niche that help no task (what a wrong lesson names; created on first use, as many as its strategies). */
  decoyStrategies(niche: string): readonly Strategy[] {
    return this.scope(`decoy:${niche}`, this.forNiche(niche).strategiesPerNiche);
  }

  /**
   * The niche strategies a task needs: a seeded subset growing with difficulty. With
   * `strategyRarity` > 0, strategy i enters with weight 1/(i+1)^rarity (Efraimidis–Spirakis keys
   * u^(1/w), the largest n), so the first strategies are common and the last rare.
   */
  required(niche: string, taskId: string, difficulty: number, question?: string): Strategy[] {
    const pool = this.nicheStrategies(niche);
    const own = this.forNiche(niche);
    const n = Math.max(1, Math.min(pool.length, own.requiredBase + Math.round(difficulty)));
    if (this.families(niche) > 0) {
      // Read from the family the task's text shows (the id's family when no text is given: the one it shows).
      const family = question === undefined ? this.taskFamily(niche, taskId) : this.familyShown(niche, question);
      if (family !== undefined) {
        const order = this.familyOrder(niche, family);
        if (own.familyRarity <= 0) return order.slice(0, n);
        return zipfSample(order, n, own.familyRarity, createRng(`${this.seed}/required/${taskId}`));
      }
    }
    const rng = createRng(`${this.seed}/required/${taskId}`);
    if (own.strategyRarity === 0) return rng.shuffle(pool).slice(0, n);
    return zipfSample(pool, n, own.strategyRarity, rng);
  }

  /**
   * The problem family of a task (`taskFamilies` > 0): drawn from its id, uniform over the niche's
   * families; undefined when the niche has none.
   */
  taskFamily(niche: string, taskId: string): number | undefined {
    const families = this.families(niche);
    return families > 0 ? createRng(`${this.seed}/family/${taskId}`).int(families) : undefined;
  }

  /** A niche's number of problem families (`taskFamilies`, a whole number; 0 or less: none). */
  private families(niche: string): number {
    return Math.max(0, Math.floor(this.forNiche(niche).taskFamilies));
  }

  /** The cue of a niche's family `f`: the words its tasks' text shows (distinct between the niche's families). */
  familyCue(niche: string, f: number): string {
    return this.nicheCues(niche)[f]!;
  }

  /** The family whose cue a text shows on its "Problem type:" line, if any. */
  familyShown(niche: string, text: string): number | undefined {
    const m = CUE_PATTERN.exec(text);
    if (!m) return undefined;
    const f = this.nicheCues(niche).indexOf(m[1]!);
    return f >= 0 ? f : undefined;
  }

  /** The problem type a task's text shows, as a lesson names it ("problems of type …"); undefined when it shows none. */
  problemType(niche: string, question: string | undefined): string | undefined {
    const f = question === undefined || this.families(niche) === 0 ? undefined : this.familyShown(niche, question);
    return f === undefined ? undefined : `problems of type ${this.familyCue(niche, f)}`;
  }

  /**
   * A task as this world shows it: under `taskFamilies` its text starts with its family's cue
   * line, the surface feature that says what kind of problem it is; otherwise the task itself.
   */
  present<T extends { readonly id: string; readonly niche: string; readonly question: string }>(task: T): T {
    const f = this.taskFamily(task.niche, task.id);
    return f === undefined ? task : { ...task, question: `${CUE_LINE} ${this.familyCue(task.niche, f)}.\n\n${task.question}` };
  }

  /** Family `f`'s own order of its niche's strategies: its tasks need the first ones, more when harder. */
  private familyOrder(niche: string, f: number): Strategy[] {
    const key = `${niche}/${f}`;
    let order = this.familyOrders.get(key);
    if (!order) this.familyOrders.set(key, order = createRng(`${this.seed}/family-strategies/${niche}/${f}`).shuffle(this.nicheStrategies(niche)));
    return order;
  }

  private nicheCues(niche: string): string[] {
    const families = this.families(niche);
    let cues = this.cues.get(niche);
    if (cues && cues.length === families) return cues;
    cues = [];
    // Drawn from a hash of the niche and family, probing on a repeated word: the niche's cues share
    // no word while there are words enough, so two families' texts differ in every cue word.
    const disjoint = families * CUE_LENGTH <= CUE_WORDS.length;
    const taken = new Set<string>();
    for (let i = 0; cues.length < families; i++) {
      const words: string[] = [];
      for (let j = 0; words.length < CUE_LENGTH; j++) {
        const w = CUE_WORDS[hash32(`${this.seed}/cue/${niche}/${i}/${j}`) % CUE_WORDS.length]!;
        if (!words.includes(w) && !(disjoint && taken.has(w))) words.push(w);
      }
      const cue = words.join(' ');
      if (cues.includes(cue)) continue;
      cues.push(cue);
      for (const w of words) taken.add(w);
    }
    this.cues.set(niche, cues);
    return cues;
  }

  /** Every strategy of every scope seen so far whose phrase occurs in `text` (case-insensitive). */
  mentioned(text: string): Strategy[] {
    const lower = text.toLowerCase();
    const found = new Set<Strategy>();
    for (let dash = lower.indexOf('-'); dash !== -1; dash = lower.indexOf('-', dash + 1)) {
      for (const n of this.headLengths) {
        if (n > dash) continue;
        const list = this.byHead.get(lower.slice(dash - n, dash));
        if (list) for (const s of list) if (lower.startsWith(s.phrase, dash - n)) found.add(s);
      }
    }
    return found.size === 0 ? [] : this.all.filter((s) => found.has(s));
  }

  private scope(scope: string, count: number): Strategy[] {
    let list = this.byScope.get(scope);
    if (list) return list;
    list = [];
    // Phrases are drawn from a hash of the scope alone, probing on collision, so a niche's
    // strategies do not depend on which niches were seen before it (except in a collision).
    for (let i = 0; list.length < count; i++) {
      const h = hash32(`${this.seed}/${scope}/${i}`);
      const phrase = `${STEMS[h % STEMS.length]}-${STEMS[(h >>> 8) % STEMS.length]} ${FORMS[(h >>> 16) % FORMS.length]}`;
      if (this.used.has(phrase) || phrase.split(/[- ]/)[0] === phrase.split(/[- ]/)[1]) continue;
      const s: Strategy = { phrase, gloss: GLOSSES[(h >>> 20) % GLOSSES.length]!, scope };
      this.used.set(phrase, scope);
      list.push(s);
      this.all.push(s);
      const head = phrase.slice(0, phrase.indexOf('-'));
      const heads = this.byHead.get(head);
      if (heads) heads.push(s);
      else this.byHead.set(head, [s]);
      if (!this.headLengths.includes(head.length)) this.headLengths.push(head.length);
    }
    this.byScope.set(scope, list);
    return list;
  }
}
