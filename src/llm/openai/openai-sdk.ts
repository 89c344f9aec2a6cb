/**
 * The `openai` package, loaded at an endpoint pool's first request: 0.37 MB of source that a run on
 * the simulated model never calls, and would otherwise compile at every start.
 */
import type * as Sdk from 'openai';

let sdk: typeof Sdk | undefined;
let loading: Promise<typeof Sdk> | undefined;

/** The SDK, loaded on the first call (callers waiting for it resume in the order they called). */
export function loadOpenAI(): Promise<typeof Sdk> {
  return (loading ??= import('openai').then((m) => (sdk = m)));
}

/** The SDK when it has been loaded: an error of the SDK's can only come from a client made after. */
export function loadedOpenAI(): typeof Sdk | undefined {
  return sdk;
}
