import { sendJson, WireError } from './openai-wire';
import type { RouteHandler } from './sim-server-context';
import type { SimNiche, SimTask } from '../side-channel';

function entry(x: unknown, at: string): { task: SimTask; spec: SimNiche } {
  const e = x as { task?: { id?: unknown }; spec?: { id?: unknown } } | null;
  if (!e || typeof e.task?.id !== 'string' || typeof e.spec?.id !== 'string') {
    throw new WireError(400, `${at} must be {task, spec} with string ids`, 'invalid_request_error', null, at);
  }
  return e as unknown as { task: SimTask; spec: SimNiche };
}

/**
 * `POST /v1/sim/side-channel` (or `/sim/side-channel`) — serve-sim only, never part of the OpenAI API. The engine's
 * RemoteSideChannel sends `{task, spec}` (or `{entries: [{task, spec}, …]}`) for each task in
 * flight so the simulator can answer right or wrong, exactly as the in-process side channel does.
 * A real inference server never receives this.
 */
export const sideChannelRegister: RouteHandler = (ctx, _req, res, body) => {
  const list = Array.isArray(body.entries) ? body.entries.map((e, i) => entry(e, `entries[${i}]`)) : [entry(body, 'body')];
  for (const e of list) ctx.sim.sideChannel.register(e.task, e.spec);
  sendJson(res, 200, { registered: list.length });
};

/** `DELETE /sim/side-channel/<task id>`: forget a finished task. */
export const sideChannelUnregister: RouteHandler = (ctx, req, res) => {
  const tail = (req.url ?? '').split('?')[0]!.replace(/^(\/v1)?\/sim\/side-channel\//, '');
  const id = decodeURIComponent(tail);
  const known = ctx.sim.sideChannel.get(id) !== undefined;
  ctx.sim.sideChannel.unregister(id);
  sendJson(res, 200, { unregistered: known ? 1 : 0 });
};
