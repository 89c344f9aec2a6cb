import { isLoopbackURL } from '../core/loopback';
import type { Completion, CompletionRequest, LanguageModel } from '../llm/model';
import type { SideChannelEntry, SimSideChannel } from './side-channel';

/** The request body field serve-sim reads a task's side-channel entry from. */
export const SIDE_CHANNEL_FIELD = 'evochamber_sim';

/** A model behind HTTP endpoints whose addresses can be listed (the OpenAI pool). */
export interface RoutedModel extends LanguageModel {
  /** The base URL of every endpoint a request may be routed to now. */
  baseURLs(): readonly string[];
}

/** The side channel was asked for, but an endpoint is not on loopback: nothing is sent. */
export class SideChannelRefusedError extends Error {
  override readonly name = 'SideChannelRefusedError';
}

/**
 * Check that every endpoint of `model` is on loopback: the simulator's side channel carries gold
 * answers and hidden tests, so it goes to serve-sim on this machine only. Throws
 * SideChannelRefusedError naming the first endpoint that is not.
 */
export function assertLoopback(urls: readonly string[]): void {
  const remote = urls.find((u) => !isLoopbackURL(u));
  if (remote !== undefined) {
    throw new SideChannelRefusedError(`model.simSideChannel: endpoint ${safeHost(remote)} is not on loopback; gold answers go only to a serve-sim on this machine (127.0.0.1, ::1, localhost)`);
  }
}

function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/**
 * THE SIMULATOR'S SIDE CHANNEL OVER HTTP, as a wrapper around the OpenAI pool: each request of a
 * task in flight carries that task's entry (gold answer and hidden tests included) in the body
 * field `evochamber_sim`, so a serve-sim on this machine answers right or wrong as the in-process
 * simulator does. It exists only when the scenario asks for it by name (`model.simSideChannel:
 * true`, `--sim-side-channel`), and it refuses, before every request, to send anything while any
 * endpoint of the pool is off loopback: what a server says about itself is never enough.
 * The request journal sits outside this wrapper, so the entry is never journaled.
 */
export class ServedSideChannelModel implements LanguageModel {
  readonly name: string;

  constructor(private readonly inner: RoutedModel, readonly channel: SimSideChannel) {
    this.name = inner.name;
    assertLoopback(inner.baseURLs());
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    const entry: SideChannelEntry | undefined = this.channel.get(req.taskId);
    if (!entry) return this.inner.complete(req);
    // Endpoints can be added while a run goes on: check where this request may go, every time.
    assertLoopback(this.inner.baseURLs());
    return this.inner.complete({ ...req, extraBody: { ...req.extraBody, [SIDE_CHANNEL_FIELD]: entry } });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }
}
