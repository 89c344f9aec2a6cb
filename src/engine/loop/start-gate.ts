import type { BudgetStop } from './budget';

/** Why a task may not start now. */
export type StartBlock =
  /** The stream has no task left. */
  | 'exhausted'
  /** As many tasks are in flight as the solve window allows. */
  | 'window-full'
  /** A stop request: no new tasks, those in flight finish. */
  | 'stopped'
  /** A cut: stop at once. */
  | 'cut'
  /** No endpoint came back in time. */
  | 'outage'
  /** The run's budget would be passed (once said, for the rest of the run). */
  | 'budget'
  /** A resumed run re-executing its log starts a task only where the log did. */
  | 'replay'
  /** The meta-editor's segment ends here. */
  | 'segment-end'
  /** No endpoint is healthy right now: wait and look again. */
  | 'no-endpoint';

/** The gate's answer: start, or why not (with `budget`, the limit the new task would pass, when it was found now). */
export type StartVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: StartBlock; readonly budget?: BudgetStop };

/** What the gate looks at. The functions are asked in the order below, only when everything before them allows a start. */
export interface StartGateInputs {
  readonly exhausted: boolean;
  /** Tasks started and not yet committed. */
  readonly inFlight: number;
  /** The solve window now. */
  readonly limit: number;
  readonly stopped: boolean;
  readonly cut: boolean;
  readonly outage: boolean;
  /** The budget already stopped starts (earlier in the run). */
  readonly spent: boolean;
  readonly replayAllows: () => boolean;
  readonly segmentAllows: () => boolean;
  readonly endpointsUp: () => boolean;
  /** The budget's look at one more task (null: it fits). */
  readonly budget: () => BudgetStop | null;
}

/**
 * Whether the next task of the stream may start, and if not, why: the first reason in a fixed order
 * (the stream, the window, stop and cut requests, an outage, a spent budget, the replayed log, the
 * meta segment, endpoint health, then the budget's estimate with this task added). Pure apart from
 * the functions it is given.
 */
export function startGate(g: StartGateInputs): StartVerdict {
  const no = (reason: StartBlock, budget?: BudgetStop): StartVerdict => ({ ok: false, reason, ...(budget ? { budget } : {}) });
  if (g.exhausted) return no('exhausted');
  if (g.inFlight >= g.limit) return no('window-full');
  if (g.stopped) return no('stopped');
  if (g.cut) return no('cut');
  if (g.outage) return no('outage');
  if (g.spent) return no('budget');
  if (!g.replayAllows()) return no('replay');
  if (!g.segmentAllows()) return no('segment-end');
  if (!g.endpointsUp()) return no('no-endpoint');
  const stop = g.budget();
  return stop ? no('budget', stop) : { ok: true };
}
