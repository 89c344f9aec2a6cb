import type { Budget } from '../engine/scenario/budget-schema';
import type { LoadedScenario } from '../engine/scenario/scenario';
import type { ScenarioPatch } from '../core/scenario-patch';
import { parsePriceFlag, type ModelPrice } from '../llm/pricing';
import { UsageError } from './usage';

/** The budget and price flags shared by run, resume, ablate and plan. */
export const BUDGET_FLAG_OPTIONS = {
  'budget-tokens': { type: 'string' },
  'budget-completion-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
  price: { type: 'string', multiple: true },
} as const;

/** Help lines of the budget and price flags. */
export const BUDGET_FLAGS_HELP = `Budgets and prices:
  --budget-tokens N             stop starting tasks once committed work plus the estimated cost of
                                the work in flight would pass N tokens (prompt + completion): the run
                                stops as Ctrl-C stops it (status budget, exit 4); resume with a
                                larger budget continues it
  --budget-completion-tokens N  the same, counting completion tokens only
  --budget-usd X                the same in US dollars, at the prices given
  --price MODEL=IN/OUT          US dollars per million input / output tokens of a model, as the
                                backend names it (the simulated model is "sim"); repeat per model`;

/** The values the budget flags parse into. */
export interface BudgetFlagValues {
  readonly 'budget-tokens'?: string;
  readonly 'budget-completion-tokens'?: string;
  readonly 'budget-usd'?: string;
  readonly price?: string[];
}

function positiveNumber(value: string | undefined, flag: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} takes a ${integer ? 'whole number' : 'number'} > 0, got "${value}"`);
  }
  return n;
}

/** The budget the flags give (undefined when none), checked: one line naming the flag for a bad value. */
export function budgetFromFlags(v: BudgetFlagValues): Budget | undefined {
  const tokens = positiveNumber(v['budget-tokens'], '--budget-tokens', true);
  const completionTokens = positiveNumber(v['budget-completion-tokens'], '--budget-completion-tokens', true);
  const usd = positiveNumber(v['budget-usd'], '--budget-usd', false);
  if (tokens === undefined && completionTokens === undefined && usd === undefined) return undefined;
  // The limits given, and only those (the budget schema wants at least one, and none unset).
  return Object.fromEntries(Object.entries({ tokens, completionTokens, usd }).filter(([, v]) => v !== undefined)) as Budget;
}

/** The prices the flags give, by model, checked against the models the scenario can call (`model`: its model section as run, after the backend flags). */
export function pricesFromFlags(v: BudgetFlagValues, loaded: LoadedScenario, model: unknown = loaded.scenario.model): Record<string, ModelPrice> | undefined {
  if (!v.price?.length) return undefined;
  const known = scenarioModels(model as LoadedScenario['scenario']['model']);
  const out: Record<string, ModelPrice> = {};
  for (const p of v.price) {
    let entry: [string, ModelPrice];
    try {
      entry = parsePriceFlag(p);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (!known.includes(entry[0])) throw new UsageError(`--price: unknown model "${entry[0]}" (this scenario's models: ${known.join(', ')})`);
    out[entry[0]] = entry[1];
  }
  return out;
}

/** The model names a scenario's calls can be answered by: `sim`, or each endpoint's model. */
export function scenarioModels(m: LoadedScenario['scenario']['model']): string[] {
  return m.backend === 'openai' ? [...new Set(m.endpoints.map((e) => e.model))] : [m.backend];
}

/**
 * `--price` flags as a patch of the scenario's `prices` (merged whole: model names may hold dots),
 * so a run's file and reproduce command carry them; empty when none are given.
 */
export function priceFlagsPatch(loaded: LoadedScenario, v: BudgetFlagValues, model?: unknown): ScenarioPatch {
  const prices = pricesFromFlags(v, loaded, model);
  return prices ? { prices: { ...loaded.scenario.prices, ...prices } } : {};
}
