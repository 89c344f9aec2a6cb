/** Per-niche competence c[n] ∈ [0,1] (EWMA of rewards) and exposure e[n] (tasks seen). */
export interface CompetenceState {
  readonly competence: Readonly<Record<string, number>>;
  readonly exposure: Readonly<Record<string, number>>;
}

/** EWMA parameters: learning rate η and the initial competence c0 of an unseen niche. */
export interface CompetenceParams {
  readonly eta: number;
  readonly c0: number;
}

/** c[n] of an agent, c0 when the niche was never seen. */
export function competenceOf(state: CompetenceState, niche: string, c0: number): number {
  return state.competence[niche] ?? c0;
}

/** One observation: c[n] ← (1−η)·c[n] + η·r and e[n] ← e[n] + 1. Returns a new state. */
export function observe(state: CompetenceState, niche: string, reward: number, p: CompetenceParams): CompetenceState {
  const prev = competenceOf(state, niche, p.c0);
  return {
    competence: { ...state.competence, [niche]: (1 - p.eta) * prev + p.eta * reward },
    exposure: { ...state.exposure, [niche]: (state.exposure[niche] ?? 0) + 1 },
  };
}
