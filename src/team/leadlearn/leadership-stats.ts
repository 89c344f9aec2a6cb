/** One structure's evidence in one slice of the bank: records, mean team reward, its standard error. */
export interface StructureStat {
  readonly structure: string;
  readonly count: number;
  readonly mean: number;
  /** Standard error of the mean (sample sd / √count); null below two records. */
  readonly stderr: number | null;
}

/** A structure's cross-area prior: how it did on the other niches, one mean per niche. */
export interface AreaPrior {
  readonly structure: string;
  /** Other niches where it led at least `MIN_AREA_RECORDS` tasks. */
  readonly areas: number;
  /** Mean of those niches' mean team rewards (each niche counts once, however many records it has); 0 with no area. */
  readonly mean: number;
  /** Lowest and highest of those niches' means (how much the structure's worth varies by area). */
  readonly low: number;
  readonly high: number;
}

/**
 * Records a niche needs before its mean counts in another niche's prior. Below three, one task's
 * luck decides the mean (a 95% interval on three binary rewards is wider than ±0.4), and the
 * first tasks of a run are led by teams that have learnt nothing yet.
 */
export const MIN_AREA_RECORDS = 3;

/** Running moments after one more record (Welford), stamped with the pool version that committed it. */
interface Moments {
  readonly asOf: number;
  readonly count: number;
  readonly mean: number;
  /** Sum of squared deviations from the mean. */
  readonly m2: number;
}

/**
 * Per-(niche, structure) statistics over the whole leadership bank, kept incrementally: each record
 * updates one running mean in O(1), and each update is stamped with its commit version, so a task
 * in flight reads the statistics exactly as of the pool version it started from (the same rule as
 * the bank's records). Never rescans records; the cross-area prior reads one mean per niche.
 */
export class LeadershipStats {
  /** `niche|structure` → the moments after each record, in commit order. */
  private readonly history = new Map<string, Moments[]>();
  private readonly niches = new Set<string>();

  /** Count one record of `structure` on `niche` with team reward `outcome`, committed at pool version `asOf`. */
  add(niche: string, structure: string, outcome: number, asOf: number): void {
    const key = `${niche}|${structure}`;
    const list = this.history.get(key) ?? [];
    const last = list[list.length - 1] ?? { asOf: 0, count: 0, mean: 0, m2: 0 };
    const count = last.count + 1;
    const mean = last.mean + (outcome - last.mean) / count;
    list.push({ asOf, count, mean, m2: last.m2 + (outcome - last.mean) * (outcome - mean) });
    this.history.set(key, list);
    this.niches.add(niche);
  }

  /** Statistics of each structure for a niche, as of pool version `asOf`. */
  forNiche(niche: string, structures: readonly string[], asOf = Infinity): StructureStat[] {
    return structures.map((s) => this.read(`${niche}|${s}`, s, asOf));
  }

  /**
   * Each structure's prior from the niches other than `niche`, as of `asOf`: the mean of their
   * per-niche means over the niches where it has at least `minRecords` records. The unit of
   * evidence is the niche, not the record: structures rank differently by niche, so a thousand
   * records from one niche say about a new niche what one niche says.
   */
  priorFor(niche: string, structures: readonly string[], asOf = Infinity, minRecords = MIN_AREA_RECORDS): AreaPrior[] {
    return structures.map((structure) => {
      const means = [...this.niches].filter((n) => n !== niche)
        .map((n) => this.read(`${n}|${structure}`, structure, asOf))
        .filter((s) => s.count >= minRecords).map((s) => s.mean);
      if (means.length === 0) return { structure, areas: 0, mean: 0, low: 0, high: 0 };
      return { structure, areas: means.length, mean: means.reduce((a, b) => a + b, 0) / means.length, low: Math.min(...means), high: Math.max(...means) };
    });
  }

  private read(key: string, structure: string, asOf: number): StructureStat {
    const list = this.history.get(key) ?? [];
    // Last update committed by `asOf` (binary search: updates are appended in commit order).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.asOf <= asOf) lo = mid + 1;
      else hi = mid;
    }
    const m = list[lo - 1];
    if (!m) return { structure, count: 0, mean: 0, stderr: null };
    const stderr = m.count > 1 ? Math.sqrt(m.m2 / (m.count - 1) / m.count) : null;
    return { structure, count: m.count, mean: m.mean, stderr };
  }
}

/**
 * The 95% Wilson score interval of a mean reward over `count` records (rewards in [0, 1] read as
 * successes). Unlike mean ± 2 standard errors it stays inside [0, 1] and is honest at small
 * counts: one failure gives 0.00–0.79, not 0 ± 0. Null for no records.
 */
export function wilsonInterval(count: number, mean: number, z = 1.96): { low: number; high: number } | null {
  if (count <= 0) return null;
  const z2 = z * z;
  const centre = (mean + z2 / (2 * count)) / (1 + z2 / count);
  const half = (z / (1 + z2 / count)) * Math.sqrt((mean * (1 - mean)) / count + z2 / (4 * count * count));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
