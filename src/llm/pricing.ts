import { z } from 'zod';
import type { Usage } from './model';

/** What one model costs, in US dollars per million tokens. */
export interface ModelPrice {
  /** Per million prompt (input) tokens. */
  readonly input: number;
  /** Per million completion (output) tokens. */
  readonly output: number;
}

/** Prices by model name, as the backend reports it (`Completion.model`; the simulator is `sim`). */
export type Prices = Readonly<Record<string, ModelPrice>>;

/** The scenario's `prices` section: model name → `{input, output}` USD per million tokens. */
export const pricesSchema = z.record(z.string().min(1), z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
}));

/** The cost of one call's usage at `price`, in US dollars. */
export function costOf(price: ModelPrice, usage: Pick<Usage, 'promptTokens' | 'completionTokens'>): number {
  return (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1e6;
}

/**
 * Read a `--price` value, `MODEL=INPUT/OUTPUT` in US dollars per million tokens
 * (`gpt-4.1-mini=0.4/1.6`); throws one line naming what is wrong.
 */
export function parsePriceFlag(value: string): [string, ModelPrice] {
  const m = /^(.+)=([0-9]*\.?[0-9]+)\/([0-9]*\.?[0-9]+)$/.exec(value.trim());
  if (!m) throw new Error(`--price "${value}": expected MODEL=INPUT/OUTPUT in US dollars per million tokens, e.g. gpt-4.1-mini=0.4/1.6`);
  return [m[1]!, { input: Number(m[2]), output: Number(m[3]) }];
}

/** Round a dollar amount for summaries (to the hundredth of a cent). */
export function roundUsd(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
