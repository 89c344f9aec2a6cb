/** One structure's evidence in one slice of the bank: records, mean team reward, its standard error. */
export interface StructureStat {
  readonly structure: string;
  readonly count: number;
  readonly mean: number;
  /** Standard error of the mean (sample sd / √count); null below two records. */
  readonly stderr: number | null;
}

/** Running moments after one more record (Welford), stamped with the pool version that committed it. */
interface Moments {
  readonly asOf: number;
  readonly count: number;
  readonly mean: number;
  /** Sum of squared deviations from the mean. */
  readonly m2: number;
}

/** Width of the team-profile buckets on mean team competence. */
const BUCKET = 0.2;

/** The team-profile bucket of a competence profile: its mean competence in bands of 0.2 ("0.4-0.6"). */
export function profileBucket(profile: readonly number[]): string {
  const mean = profile.length ? profile.reduce((a, b) => a + b, 0) / profile.length : 0.5;
  const lo = Math.min(Math.floor(mean / BUCKET), 1 / BUCKET - 1) * BUCKET;
  return `${lo.toFixed(1)}-${(lo + BUCKET).toFixed(1)}`;
}

/**
 * Per-(niche, structure) and per-(team-profile bucket, structure) statistics over the whole
 * leadership bank, kept incrementally: each record updates two running means in O(1), and each
 * update is stamped with its commit version, so a task in flight reads the statistics exactly as
 * of the pool version it started from (the same rule as the bank's records). Never rescans.
 */
export class LeadershipStats {
  /** `slice|structure` → the moments after each record, in commit order. */
  private readonly history = new Map<string, Moments[]>();

  /** Count one record of `structure` with team reward `outcome`, committed at pool version `asOf`. */
  add(niche: string, profile: readonly number[], structure: string, outcome: number, asOf: number): void {
    for (const slice of [`niche:${niche}`, `team:${profileBucket(profile)}`]) {
      const key = `${slice}|${structure}`;
      const list = this.history.get(key) ?? [];
      const last = list[list.length - 1] ?? { asOf: 0, count: 0, mean: 0, m2: 0 };
      const count = last.count + 1;
      const mean = last.mean + (outcome - last.mean) / count;
      list.push({ asOf, count, mean, m2: last.m2 + (outcome - last.mean) * (outcome - mean) });
      this.history.set(key, list);
    }
  }

  /** Statistics of each structure for a niche, as of pool version `asOf`. */
  forNiche(niche: string, structures: readonly string[], asOf = Infinity): StructureStat[] {
    return structures.map((s) => this.read(`niche:${niche}|${s}`, s, asOf));
  }

  /** Statistics of each structure for teams in the same profile bucket, as of pool version `asOf`. */
  forTeam(profile: readonly number[], structures: readonly string[], asOf = Infinity): StructureStat[] {
    return structures.map((s) => this.read(`team:${profileBucket(profile)}|${s}`, s, asOf));
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
