import { inSpan } from '../../core/tracing/tracing';
import { ATTR_STAGE } from '../../core/tracing/semconv';
import type { AccountingModel } from '../../llm/token-accounting';
import { runLifecycleWindow, type WindowInput } from '../../population/lifecycle/lifecycle-window';
import type { LifecycleConfig } from '../../population/lifecycle/lifecycle-config';
import type { BudgetMeter } from './budget';

/** What the clock passes through to every window (the parts of `WindowInput` that do not move with the stream). */
export type LifecycleClockDeps = Omit<WindowInput, 'config' | 'operators' | 'window' | 'tasksSeen' | 'nichesSeen' | 'recentNiches' | 'nextAgent' | 'rng'> & {
  /** Number of the next agent to spawn (agent-NN). */
  readonly firstNewAgent: number;
  /** Forked once per window (`lifecycle/<n>`). */
  readonly rng: WindowInput['rng'];
  /** Per-stage token counts: persona writing serves no task, so the window's own event carries what it spent. */
  readonly usage?: Pick<AccountingModel, 'stage'>;
  readonly budget?: Pick<BudgetMeter, 'add'>;
  /** The window itself (default `runLifecycleWindow`; tests record calls). */
  readonly runWindow?: (w: WindowInput) => Promise<number>;
};

/**
 * The lifecycle's clock: counts committed tasks and the niches they came from, says when a window
 * is due (every `life.every` commits) and runs it, numbering windows from 1. It owns the window
 * counter, the niches seen, the niche counts since the last window and the next agent number.
 */
export class LifecycleClock {
  private committed = 0;
  private windowNo = 0;
  private nextAgent: number;
  private readonly nichesSeen: string[] = [];
  private recent: Record<string, number> = {};

  constructor(private readonly d: LifecycleClockDeps) {
    this.nextAgent = d.firstNewAgent;
  }

  /** A task of `niche` was committed. */
  tick(niche: string): void {
    this.committed++;
    if (!this.nichesSeen.includes(niche)) this.nichesSeen.push(niche);
    this.recent[niche] = (this.recent[niche] ?? 0) + 1;
  }

  /** A window is due: the commits so far fill a whole number of windows (and at least one). */
  due(life: LifecycleConfig): boolean {
    return this.committed > 0 && this.committed % life.every === 0;
  }

  /** Commits since the last window that no window has recorded yet (the stream stopped mid-window). */
  partial(life: LifecycleConfig): boolean {
    return this.committed % life.every !== 0;
  }

  /** Run one window under `life`: metrics always, the operators when `operators`. */
  async window(life: LifecycleConfig, operators: boolean): Promise<void> {
    this.windowNo++;
    const before = this.d.usage?.stage('lifecycle');
    const { firstNewAgent: _first, usage: _usage, budget: _budget, runWindow, ...pass } = this.d;
    // A span per window when tracing is on (--otel).
    this.nextAgent = await inSpan(`lifecycle window ${this.windowNo}`, { [ATTR_STAGE]: 'lifecycle', 'evochamber.window': this.windowNo }, () => (runWindow ?? runLifecycleWindow)({
      ...pass, config: life, operators, window: this.windowNo, tasksSeen: this.committed, nichesSeen: this.nichesSeen,
      recentNiches: this.recent, nextAgent: this.nextAgent, rng: this.d.rng.fork(`lifecycle/${this.windowNo}`),
    }));
    const after = this.d.usage?.stage('lifecycle');
    if (before && after && after.calls > before.calls) {
      const spent = {
        calls: after.calls - before.calls, promptTokens: after.promptTokens - before.promptTokens, completionTokens: after.completionTokens - before.completionTokens,
        ...(after.costNanoUsd !== undefined ? { costNanoUsd: after.costNanoUsd - (before.costNanoUsd ?? 0) } : {}),
      };
      this.d.budget?.add({ lifecycle: spent });
      this.d.log.append({ type: 'lifecycle.usage', window: this.windowNo, tokens: { lifecycle: spent } });
    }
    this.recent = {};
  }
}
