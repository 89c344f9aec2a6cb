import type { Sampling } from '../../llm/sampling-fields';
import { WireError } from './openai-wire';

const NUMBER_FIELDS = ['temperature', 'top_p', 'top_k', 'min_p', 'presence_penalty', 'frequency_penalty'] as const;

/**
 * The sampling fields of a request body, checked as vLLM checks them (a 400 naming the field). The
 * simulator reads temperature (docs/simulated-model.md, "Temperature"); the others are accepted and
 * change nothing in its world. `seed` is not here: it feeds the seed key.
 */
export function readWireSampling(body: Record<string, unknown>): Sampling | undefined {
  const out: Record<string, number> = {};
  for (const key of NUMBER_FIELDS) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new WireError(400, `'${key}' must be a number`, 'invalid_request_error', null, key);
    out[key] = v;
  }
  if (out.temperature !== undefined && out.temperature < 0) throw new WireError(400, "'temperature' must be non-negative", 'invalid_request_error', null, 'temperature');
  if (out.top_p !== undefined && (out.top_p <= 0 || out.top_p > 1)) throw new WireError(400, "'top_p' must be in (0, 1]", 'invalid_request_error', null, 'top_p');
  return Object.keys(out).length > 0 ? (out as Sampling) : undefined;
}
