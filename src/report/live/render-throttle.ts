import type { Clock } from '../../core/clock';

/** Most of the watch process's time spent drawing charts: a render that took `r` ms is followed by none for `2r`. */
const RENDER_SHARE = 0.5;

/**
 * When a live page's charts are drawn again: only after something changed, only while `ready()`
 * (a page is open and there is data), one render at a time, at most every `minRenderMs` and then
 * at most half the time. A run's watch and an ablation's share it.
 */
export class RenderThrottle {
  private dirty = true;
  private rendering = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextAt = 0;

  constructor(
    private readonly clock: Clock,
    private readonly minRenderMs: number,
    private readonly ready: () => boolean,
    private readonly render: () => Promise<void>,
  ) {}

  /** Something changed: draw again when allowed. */
  changed(): void {
    this.dirty = true;
    this.schedule();
  }

  /** Draw when allowed, if something changed since the last drawing (called when a page arrives). */
  schedule(): void {
    if (!this.dirty || this.rendering || this.timer || !this.ready()) return;
    const wait = Math.max(0, this.nextAt - this.clock.now());
    this.timer = setTimeout(() => { this.timer = null; void this.run(); }, wait);
  }

  /** Cancel a drawing that is waiting. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async run(): Promise<void> {
    this.rendering = true;
    this.dirty = false;
    const t0 = this.clock.now();
    try {
      await this.render();
    } finally {
      this.rendering = false;
      this.nextAt = t0 + Math.max(this.minRenderMs, (this.clock.now() - t0) / RENDER_SHARE);
      this.schedule();
    }
  }
}
