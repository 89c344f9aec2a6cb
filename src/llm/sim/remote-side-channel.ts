import type { CompletionRequest } from '../model';
import type { Endpoint } from '../openai/endpoint';
import { SIM_REGISTERED_HEADER, SIM_UNKNOWN_TASK } from './server/chat-handler';
import { SERVE_SIM_OWNER } from './server/openai-wire';
import { SimSideChannel, type SideChannelEntry, type SimNiche, type SimTask } from './side-channel';

/** Wait at most this long for a side-channel call to serve-sim. */
const CALL_TIMEOUT_MS = 30_000;

/** Which endpoints receive the side channel. */
export type SideChannelMode =
  /** Every endpoint (the scenario says they are all serve-sim). */
  | 'all'
  /** Only endpoints whose `GET /models` lists a model owned by `evochamber-sim`. */
  | 'auto';

interface TargetState {
  /** Whether this endpoint is a simulator, once known. */
  sim?: boolean;
  /** The `/models` check in progress. */
  probe?: Promise<boolean>;
  /** Task id → its registration on this endpoint. */
  readonly registered: Map<string, Promise<void>>;
  /** Entries waiting for this tick's batched POST. */
  batch?: { entries: SideChannelEntry[]; promise: Promise<void> };
}

/**
 * The simulated model's side channel, over HTTP, for serve-sim running in another process.
 * THIS IS THE SIMULATOR'S SIDE CHANNEL: it sends each in-flight task, gold answer and hidden tests
 * included, to `POST <baseURL>/sim/side-channel` (and `DELETE …/<task id>` when the task is done),
 * so serve-sim can answer right or wrong the way the in-process simulator does. It only ever
 * targets endpoints that are serve-sim (mode `auto` checks `/models`; `all` is the scenario's
 * explicit `simSideChannel: true`). A real inference server never receives gold answers.
 *
 * It is a SimSideChannel (the engine registers into it as usual) whose entries are mirrored:
 * registrations made in one tick go out as one batched POST per endpoint, and the pool's
 * `beforeSend` hook (`prepare`) awaits the registration on the chosen endpoint before the
 * task's request is sent there (registering lazily on an endpoint that joined later).
 */
export class RemoteSideChannel extends SimSideChannel {
  private readonly targets = new Map<Endpoint, TargetState>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(readonly mode: SideChannelMode) {
    super();
  }

  override register(task: SimTask, spec: SimNiche): void {
    super.register(task, spec);
    const entry = { task, spec };
    for (const [ep, st] of this.targets) {
      if (st.sim !== true || !ep.active) continue;
      const p = this.enqueue(ep, st, entry);
      p.catch(() => {});
      st.registered.set(task.id, p);
    }
  }

  override unregister(taskId: string): void {
    super.unregister(taskId);
    for (const [ep, st] of this.targets) {
      const reg = st.registered.get(taskId);
      if (!reg) continue;
      st.registered.delete(taskId);
      const del = reg
        .then(() => ep.client.delete(`/sim/side-channel/${encodeURIComponent(taskId)}`, { timeout: CALL_TIMEOUT_MS }))
        .catch(() => {});
      this.pending.add(del);
      void del.finally(() => this.pending.delete(del));
    }
  }

  /**
   * The pool's `beforeSend` hook: make sure `req`'s task is registered on `ep` (when `ep` is a
   * simulator) before the request goes out. Rejects when registration fails, failing the attempt.
   */
  readonly prepare = async (ep: Endpoint, req: CompletionRequest, _signal: AbortSignal): Promise<void | Record<string, string>> => {
    const entry = this.get(req.taskId);
    if (!entry) return;
    const st = this.state(ep);
    if (!(await this.isSim(ep, st))) return;
    let reg = st.registered.get(entry.task.id);
    if (!reg) {
      reg = this.enqueue(ep, st, entry);
      reg.catch(() => {});
      st.registered.set(entry.task.id, reg);
    }
    try {
      await reg;
    } catch (err) {
      if (st.registered.get(entry.task.id) === reg) st.registered.delete(entry.task.id);
      throw new Error(`simulator side channel on ${ep.name}: ${(err as Error)?.message ?? String(err)}`);
    }
    // Tells serve-sim to refuse (409) rather than guess when it does not know the task.
    return { [SIM_REGISTERED_HEADER]: '1' };
  };

  /**
   * The pool's `recover` hook: serve-sim answered that it does not know the task (it restarted
   * and forgot its registrations), so forget ours on that endpoint; the pool re-sends the request
   * at once and `prepare` registers the task again.
   */
  readonly recover = async (ep: Endpoint, req: CompletionRequest, err: unknown, _signal: AbortSignal): Promise<boolean> => {
    // The openai client's APIError carries the reply's status and error code.
    const e = err as { status?: unknown; code?: unknown } | null;
    if (e?.status !== 409 || e.code !== SIM_UNKNOWN_TASK) return false;
    if (req.taskId === undefined || !this.get(req.taskId)) return false;
    this.state(ep).registered.delete(req.taskId);
    return true;
  };

  /** Wait for outstanding unregistrations. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private state(ep: Endpoint): TargetState {
    let st = this.targets.get(ep);
    if (!st) {
      st = { registered: new Map() };
      this.targets.set(ep, st);
    }
    return st;
  }

  private async isSim(ep: Endpoint, st: TargetState): Promise<boolean> {
    if (this.mode === 'all') st.sim = true;
    if (st.sim !== undefined) return st.sim;
    st.probe ??= ep.client.models.list({ timeout: CALL_TIMEOUT_MS })
      .then((page) => page.data.some((m) => m.owned_by === SERVE_SIM_OWNER));
    try {
      st.sim = await st.probe;
      return st.sim;
    } finally {
      // An unreachable endpoint is asked again next time rather than remembered as "not a simulator".
      st.probe = undefined;
    }
  }

  /** Add an entry to this tick's batch for `ep`; resolves when the batch is accepted. */
  private enqueue(ep: Endpoint, st: TargetState, entry: SideChannelEntry): Promise<void> {
    if (st.batch) {
      st.batch.entries.push(entry);
      return st.batch.promise;
    }
    const entries = [entry];
    const promise = new Promise<void>((resolve, reject) => {
      queueMicrotask(() => {
        st.batch = undefined;
        ep.client.post('/sim/side-channel', { body: { entries }, timeout: CALL_TIMEOUT_MS }).then(() => resolve(), reject);
      });
    });
    st.batch = { entries, promise };
    return promise;
  }
}
