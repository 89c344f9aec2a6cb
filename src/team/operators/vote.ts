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
