/**
 * The `owned_by` of the model ids EvoChamber's serve-sim lists in `GET /v1/models`: serve-sim
 * answers with it, and the OpenAI pool recognises a simulator by it (one string, both sides).
 */
export const SERVE_SIM_OWNER = 'evochamber-sim';

/** What a run says when it talks to a serve-sim without the side channel (it would score near 0 without a word). */
export function sideChannelNotice(url: string): string {
  return `note: ${url} is EvoChamber's serve-sim, and this run does not send it the side channel (each task's gold answer), so it cannot answer right: expect an accuracy near 0. To have it answer as the in-process simulator does, add --sim-side-channel (model.simSideChannel: true; loopback servers only)`;
}
