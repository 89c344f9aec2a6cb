import type { Budget } from '../scenario/budget-schema';
import { usdOf, type StageUsage } from '../../llm/token-accounting';


/** Which limit a budget stop hit, and the figures behind it. */
export interface BudgetStop {
  readonly limit: 'tokens' | 'completionTokens' | 'usd';
  /** The limit as configured. */
  readonly budget: number;
  /** Spent by committed work. */
  readonly spent: number;
  /** Spent plus the estimated cost of the work in flight and of the task that was not started. */
  readonly projected: number;
}

/** What committed work has cost so far. */
export interface BudgetSpent {
  readonly tokens: number;
  readonly completionTokens: number;
  readonly usd: number;
}

/**
 * Counts what committed work cost — each task's own calls at its solve commit, its evolve stage's
 * when applied, each lifecycle window's — and says whether one more task may start. Work in flight
 * and the next task are each estimated at the mean cost of a committed task so far (nothing before
 * the first commit). Everything it reads is committed in stream order, so under the simulated model
 * a budget stops a run at the same task every time, and a resume re-executes up to that point.
 */
export class BudgetMeter {
  private tokens = 0;
  private completion = 0;
  private nanoUsd = 0;
  private tasks = 0;

  constructor(readonly budget: Budget) {}

  /** Add the calls and tokens (by stage) of committed work. */
  add(usage: Readonly<Record<string, StageUsage>> | undefined): void {
    for (const u of Object.values(usage ?? {})) {
      this.tokens += u.promptTokens + u.completionTokens;
      this.completion += u.completionTokens;
      this.nanoUsd += u.costNanoUsd ?? 0;
    }
  }

  /** A task's solve stage was committed (the unit the mean cost is taken over). */
  taskCommitted(): void {
    this.tasks += 1;
  }

  /** What committed work has cost. */
  spent(): BudgetSpent {
    return { tokens: this.tokens, completionTokens: this.completion, usd: usdOf({ costNanoUsd: this.nanoUsd }) };
  }

  /**
   * Null when one more task may start with `inFlight` tasks already running; otherwise the limit
   * it would pass. The estimate is the mean cost of a committed task for each task in flight and for the new one.
   */
  checkStart(inFlight: number): BudgetStop | null {
    const n = inFlight + 1;
    const mean = (x: number) => (this.tasks > 0 ? x / this.tasks : 0);
    const s = this.spent();
    const checks: Array<[BudgetStop['limit'], number | undefined, number]> = [
      ['tokens', this.budget.tokens, s.tokens],
      ['completionTokens', this.budget.completionTokens, s.completionTokens],
      ['usd', this.budget.usd, s.usd],
    ];
    for (const [limit, budget, spent] of checks) {
      if (budget === undefined) continue;
      const projected = spent + n * mean(spent);
      if (spent >= budget || projected > budget) return { limit, budget, spent, projected };
    }
    return null;
  }
}
