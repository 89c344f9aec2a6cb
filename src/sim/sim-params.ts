/**
 * Every parameter of the simulated model, in one place. The simulator is a world model for
 * exercising EvoChamber's mechanics: its numbers are chosen to make effects measurable, not
 * fitted to any real LLM. A scenario may override any of them under `sim:`.
 *
 * Success of one solve attempt is a Bernoulli draw with probability
 *   σ( base + personaMatch·[persona names the niche]
 *          + coverage·(required strategies named in the prompt / required)
 *          + subdomain·min(1, subdomain strategies named / 2)
 *          + crossDomain·min(1, cross-domain strategies named / 2)
 *          − difficulty·level − dilution·min(dilutionCap, off-niche strategy mentions) )
 * where a required strategy the prompt names only in someone else's text counts `peerUptake`.
 */
export interface SimParams {
  /** Logit of a bare model on a level-0 task. */
  base: number;
  /** Logit bonus when the persona mentions one of the niche's keywords. */
  personaMatch: number;
  /** Logit bonus at full coverage of the task's required strategies. */
  coverage: number;
  /** Logit bonus for knowing the domain's shared (subdomain) strategies. */
  subdomain: number;
  /** Logit bonus for knowing cross-domain strategies. */
  crossDomain: number;
  /**
   * Specialization's edge: logit bonus at full niche-specific know-how, the author's own context
   * (persona, own experience) naming `expertiseSaturation` of the niche's strategies or more;
   * proportional below. Skill grows with niche experience beyond the strategies a task needs. 0: none.
   */
  expertise: number;
  /** Niche strategies held at which `expertise` is full (a whole number: the world's form). */
  expertiseSaturation: number;
  /** Specialization's cost: logit lost when the persona specialises in another area (interference). 0: none. */
  offNichePersona: number;
  /** Logit cost per difficulty level. */
  difficulty: number;
  /** Logit cost per strategy mention that belongs to another niche's world (off-niche context). */
  dilution: number;
  /** Most off-niche mentions that count against one attempt. */
  dilutionCap: number;
  /** Latent strategies per niche. */
  strategiesPerNiche: number;
  /** Shared strategies per domain. */
  strategiesPerDomain: number;
  /** Strategies shared by every domain. */
  crossDomainStrategies: number;
  /** Required strategies of a task = min(strategiesPerNiche, requiredBase + level). */
  requiredBase: number;
  /**
   * How unevenly tasks need their niche's strategies: strategy i (0-based, in the niche's order) is
   * drawn into a task's required set with weight 1/(i+1)^strategyRarity (a Zipf law; weighted
   * sampling without replacement). 0: every strategy equally often (the uniform draw). Real
   * problem sets have a few techniques almost every problem uses and a long tail of rare ones.
   */
  strategyRarity: number;
  /**
   * Problem families per niche (a world-form switch, docs/simulated-model.md, "World-form
   * mechanisms (off by default)"): each task belongs to one of its niche's `taskFamilies`
   * families, its text shows the family's cue (a "Problem type:" line), and its required
   * strategies are the first ones of the family's own order of the niche's strategies, read from
   * that cue. A lesson helps when the new problem looks like the one it was learnt on. 0: required
   * strategies drawn from the task id, and nothing in the text shows them (the world as it was).
   */
  taskFamilies: number;
  /**
   * Rarity within a family (`taskFamilies` > 0): a task of family f draws its required strategies
   * from f's own order of the niche's strategies with weight 1/(i+1)^familyRarity (a Zipf law, from
   * the task's own seeded draw), so each family has a few techniques most of its problems need and a
   * long tail few do, and a niche with many strategies keeps teaching something new. 0: the first
   * ones of the family's order (as before).
   */
  familyRarity: number;
  /**
   * Context budget: only the first `contextBudget` items of a prompt's retrieved experience (its
   * lessons, then its general insights, most similar first) are read; the rest are as if absent.
   * A model attends to a few of the snippets put before it. 0: no budget (every item counts).
   */
  contextBudget: number;
  /**
   * Sharing that has a cost: chance that one retrieved lesson learnt in another situation (another
   * area, or another problem type than the task's text shows) and naming no strategy the task needs
   * misleads the attempt (it follows the wrong technique). One draw per such lesson. 0: no draw.
   */
  foreignMislead: number;
  /** Logit cost of each lesson that misleads an attempt (`foreignMislead`). */
  misleadCost: number;
  /**
   * Chance that a reflection's discovery (post-task, or CoDream's private reflect) names a technique
   * that does not help instead of the strategy it found: a decoy of the niche, which no task needs
   * and which counts as an off-niche mention (`dilution`). Self-generated lessons are sometimes
   * wrong (a mis-attributed cause of a success or failure).
   */
  wrongLesson: number;
  /** Chance that reflecting after a success names one of the task's strategies the agent lacked. */
  discoverOnSuccess: number;
  /** The same after a failure. */
  discoverOnFailure: number;
  /**
   * Knowledge from contrast (docs/simulated-model.md, "World-form mechanisms (off by default)"): reflecting ALONE on a
   * failure, the discovery chance is multiplied by exp(−reflectDifficulty·level): the harder the
   * problem, the less a model can tell by itself what it was missing. 0: no effect.
   */
  reflectDifficulty: number;
  /**
   * The same draw, multiplied by 1 − reflectCompetence·(1 − held), `held` the share of the task's
   * required strategies the reflecting agent's own prompt names: a competent agent diagnoses its own
   * failure, a weak one mostly cannot. 0: no effect.
   */
  reflectCompetence: number;
  /**
   * Contrast in a team's reflection: a member whose own answer failed while the team's answer
   * (shown in its reflection prompt) was right names, with this chance, one of the task's strategies
   * the team's answer names and its own lessons and answer do not. It reads only that prompt.
   * 0: no draw (as before).
   */
  contrastUptake: number;
  /** CoDream debate: chance a member votes to keep a proposal that names a concrete technique. */
  dreamKeepConcrete: number;
  /** CoDream debate: chance a member votes to keep a vague proposal (no technique named). */
  dreamKeepVague: number;
  /** Chance that a reflection's general insight names a cross-domain strategy. */
  metaDiscovery: number;
  /** Wrong answers pick distractor i with weight skew^i: lower skew makes wrong answers agree more. */
  distractorSkew: number;
  /** Chance a wrong answer is a fresh, unique mistake instead of a shared distractor. */
  uniqueMistake: number;
  /** Chance an answer is wrapped in a `<think>` block (exercises answer extraction). */
  thinkBlock: number;
  /** Chance a reply is malformed (no answer in the requested format / broken JSON). */
  malformed: number;
  /**
   * Reflective staleness check: chance the model answers KEEP whatever the updates shown say (a
   * reviewer comparing one text with a list of others misses some overlap). 0.1 mirrors the
   * simulated debater's error on concrete proposals (1 − dreamKeepConcrete): one judgement in ten
   * about named techniques goes wrong. Set from that, not tuned to any result.
   */
  staleMisjudge: number;
  /**
   * Median simulated output length (tokens) per request kind: a domain's answers, or `json` replies;
   * `default` for a domain not listed. Log-normal with `lengthSigma`.
   */
  medianTokens: { math: number; code: number; qa: number; json: number; default: number } & Record<string, number>;
  /** Log-normal σ of output lengths. */
  lengthSigma: number;
  /**
   * Logit bonus when a revising member reads a teammate's RIGHT answer that it can check: the
   * teammate's reply shows its work (a worked derivation, or the evidence quoted from the passage),
   * or public-test results in the prompt show the code passing. A bare answer (a function with no
   * test results, a QA answer without its evidence) cannot be checked by reading, so earns nothing.
   */
  recognize: number;
  /**
   * Logit pull towards a wrong answer that every teammate gives in a debate revision; a reviser that
   * stays wrong then adopts it. A social pull: it does not depend on what the answers show.
   */
  conformity: number;
  /**
   * Weight of a required strategy the reviser only READ in someone else's text (a teammate's
   * answer, a reviewer's feedback) against one it holds (persona, own experience) or receives as a
   * step already done (a sub-problem solved with it): a name read is not a skill held.
   */
  peerUptake: number;
  /**
   * Logit bonus for a reviser whose prompt shows its previous answer failing public tests: a failing
   * test localises the bug and the fix can be checked against it (what reading code cannot give).
   * Equal to `recognize`: both are a signal the reviser can check.
   */
  testFeedback: number;
  /**
   * Decomposition without held knowledge: chance a member handed a sub-problem that states a step
   * (the decomposer's gloss of the task's strategy) applies it though it does not hold the strategy,
   * as an LLM follows a plan it is handed; the step then counts as done for the synthesizer. One draw
   * per such part, from the part request's rng. 0: no draw (a part is solved with a strategy only
   * from the member's own knowledge, as before).
   */
  stepUptake: number;
  /** A reviewer's logit of judging a candidate correctly, before its own knowledge, per domain. */
  criticBase: { math: number; code: number; qa: number; default: number } & Record<string, number>;
  /** How much a reviewer's coverage of the task's strategies adds to that logit. */
  criticCoverage: number;
  /** Leader's exploration bonus c/√(1+n) for a structure with n records on the niche (shrinks with evidence). */
  leaderExplore: number;
  /** Weight, in records, of the leader's prior for a structure (the prompt's prior line) against the niche's evidence. */
  leaderPrior: number;
  /** Noise on the leader's structure scores. */
  leaderNoise: number;
  /**
   * Chance the leader gives the structure it has the fewest records for in the area another try
   * instead of its best-scoring one: an LLM leader keeps its prior and re-explores after an early
   * failure instead of locking a structure out of the stream. 0: no draw (as before).
   */
  leaderRetry: number;
  /** Meta-editor: chance it nudges a knob drawn at random instead of following its rules (a useless edit). */
  metaUseless: number;
  /** Meta-editor: accuracy gap below the best structure at which it stops offering a structure. */
  metaStructureGap: number;
  /** Meta-editor: tasks a structure needs in the segment before it is judged. */
  metaMinUses: number;
  /** Meta-editor: share of tasks with a CoDream session above which CoDream counts as busy. */
  metaBusyCoDream: number;
  /** Meta-editor: accuracy change it reads as no change (a rise below it is flat, a fall beyond it hurt). */
  metaFlatEpsilon: number;
  /**
   * Temperature (docs/simulated-model.md, "Temperature"): the sampling temperature at and above
   * which a request's draws are independent of its prompt. Below it each draw is the prompt's own
   * draw with probability s = 1 − T / temperatureIndependent, else the request's; at 0 an answer is
   * a function of the prompt. A request with no temperature draws as before (independently).
   */
  temperatureIndependent: number;
  /** Virtual timing: time to first token (ms) and per output token (ms); single-request, no batching. */
  ttftMs: number;
  msPerToken: number;
}

/** Defaults; see the table in docs/simulated-model.md. */
export const DEFAULT_SIM_PARAMS: SimParams = {
  base: 1.2,
  personaMatch: 0.6,
  coverage: 2.6,
  subdomain: 0.3,
  crossDomain: 0.3,
  difficulty: 0.9,
  expertise: 0,
  expertiseSaturation: 4,
  offNichePersona: 0,
  dilution: 0.15,
  dilutionCap: 10,
  strategiesPerNiche: 6,
  strategiesPerDomain: 2,
  crossDomainStrategies: 3,
  requiredBase: 0,
  strategyRarity: 0,
  taskFamilies: 0,
  familyRarity: 0,
  contextBudget: 0,
  foreignMislead: 0,
  misleadCost: 0.5,
  wrongLesson: 0,
  discoverOnSuccess: 0.5,
  discoverOnFailure: 0.3,
  reflectDifficulty: 0,
  reflectCompetence: 0,
  contrastUptake: 0,
  metaDiscovery: 0.3,
  dreamKeepConcrete: 0.9,
  dreamKeepVague: 0.15,
  distractorSkew: 0.5,
  uniqueMistake: 0.25,
  thinkBlock: 0.2,
  malformed: 0.02,
  staleMisjudge: 0.1,
  medianTokens: { math: 1500, code: 600, qa: 300, json: 300, default: 600 },
  lengthSigma: 0.8,
  recognize: 1.2,
  conformity: 0.8,
  peerUptake: 0.5,
  testFeedback: 1.2,
  stepUptake: 0,
  criticBase: { math: 0.6, code: 0.2, qa: 0.8, default: 0.5 },
  criticCoverage: 1.5,
  leaderExplore: 0.3,
  leaderPrior: 2,
  leaderNoise: 0.05,
  leaderRetry: 0,
  metaUseless: 0.2,
  metaStructureGap: 0.15,
  metaMinUses: 8,
  metaBusyCoDream: 0.6,
  metaFlatEpsilon: 0.01,
  temperatureIndependent: 1,
  ttftMs: 60,
  msPerToken: 7.3,
};

/** Merge scenario overrides into the defaults (nested `medianTokens` merged key by key). */
export function resolveSimParams(overrides: Partial<SimParams> = {}): SimParams {
  return {
    ...DEFAULT_SIM_PARAMS,
    ...overrides,
    medianTokens: { ...DEFAULT_SIM_PARAMS.medianTokens, ...(overrides.medianTokens ?? {}) },
    criticBase: { ...DEFAULT_SIM_PARAMS.criticBase, ...(overrides.criticBase ?? {}) },
  };
}

/** The median output length of a request kind (a domain, or `json`), `default` for one not listed. */
export function medianTokensOf(p: SimParams, kind: string): number {
  return p.medianTokens[kind] ?? p.medianTokens.default;
}

/** A reviewer's base logit on a domain's candidates, `default` for one not listed. */
export function criticBaseOf(p: SimParams, domain: string): number {
  return p.criticBase[domain] ?? p.criticBase.default;
}
