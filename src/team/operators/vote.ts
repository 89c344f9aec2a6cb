/** The outcome of a vote over extracted answers. */
export interface VoteResult {
  /** The winning answer (the first-seen member of the largest class), or null if nobody answered. */
  readonly winner: string | null;
  /** Index (into the input) of the answer chosen as the winner's representative. */
  readonly winnerIndex: number;
  /** Size of each equivalence class, largest first. */
  readonly classSizes: readonly number[];
  /** True when the non-null answers fall in more than one equivalence class. */
  readonly disagreement: boolean;
}

/**
 * Operator: majority vote under an answer-equivalence relation. Ties go to the class whose first
 * member came earliest (so putting the leader first makes the leader break ties). Null answers abstain.
 */
export function vote(answers: readonly (string | null)[], equivalent: (a: string, b: string) => boolean): VoteResult {
  const classes: { rep: string; first: number; size: number }[] = [];
  answers.forEach((a, i) => {
    if (a === null) return;
    const c = classes.find((k) => equivalent(k.rep, a));
    if (c) c.size += 1;
    else classes.push({ rep: a, first: i, size: 1 });
  });
  if (classes.length === 0) return { winner: null, winnerIndex: -1, classSizes: [], disagreement: false };
  const best = classes.reduce((b, c) => (c.size > b.size ? c : b));
  return {
    winner: best.rep,
    winnerIndex: best.first,
    classSizes: classes.map((c) => c.size).sort((x, y) => y - x),
    disagreement: classes.length > 1,
  };
}

/**
 * Whether a vote is already decided while some answers are still outstanding (`undefined`; null:
 * answered with nothing, which abstains): true when the leading class wins the full vote
 * whatever the outstanding answers turn out to be, under `vote`'s own tie rule. For every rival —
 * each other class, and a new class formed by outstanding answers alone — the most it can reach
 * (its size plus every outstanding answer) must stay below the leader's count, or equal it while
 * the leader's first member comes before any the rival could have. False when nothing is
 * outstanding (nothing left to decide early) or nobody has answered yet. Assumes `equivalent` is
 * an equivalence relation (transitive), as the niches' answer equivalences are.
 */
export function majorityDecided(answers: readonly (string | null | undefined)[], equivalent: (a: string, b: string) => boolean): boolean {
  const pending = answers.flatMap((a, i) => (a === undefined ? [i] : []));
  if (pending.length === 0) return false;
  const firstPending = pending[0]!;
  const classes: { rep: string; first: number; size: number }[] = [];
  answers.forEach((a, i) => {
    if (a === undefined || a === null) return;
    const c = classes.find((k) => equivalent(k.rep, a));
    if (c) c.size += 1;
    else classes.push({ rep: a, first: i, size: 1 });
  });
  if (classes.length === 0) return false;
  const lead = classes.reduce((b, c) => (c.size > b.size ? c : b));
  const beats = (reach: number, first: number) => reach < lead.size || (reach === lead.size && lead.first < first);
  const rivals = classes.filter((c) => c !== lead).map((c) => ({ reach: c.size + pending.length, first: Math.min(c.first, firstPending) }));
  rivals.push({ reach: pending.length, first: firstPending });
  return rivals.every((r) => beats(r.reach, r.first));
}
