/**
 * A one-shot interruption (a cut, an outage) that work can be raced against without being retained.
 *
 * `Promise.race([work, never])` against a promise that may never settle leaves a reaction on `never`
 * for every call; each reaction holds the race's result promise, and so the value `work` settled
 * with, for as long as `never` lives (a whole run). `race` here registers its waiter in a set and
 * removes it as soon as `work` settles, so once the caller drops the value nothing else holds it.
 */
export class Interrupt<R extends string> {
  private why: R | undefined;
  private readonly waiters = new Set<(why: R) => void>();

  /** The reason it fired with, or undefined while it has not. */
  get reason(): R | undefined { return this.why; }

  /** Number of races waiting on it now (each one is released when its work settles or this fires). */
  get waiting(): number { return this.waiters.size; }

  /** Fire once with `why`: every race waiting resolves with it; later calls do nothing. */
  fire(why: R): void {
    if (this.why !== undefined) return;
    this.why = why;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w(why);
  }

  /** Fire with `why` when `signal` aborts (at once if it has); the listener is removed by the returned function. */
  follow(signal: AbortSignal | undefined, why: R): () => void {
    if (!signal) return () => {};
    const onAbort = () => this.fire(why);
    if (signal.aborted) { onAbort(); return () => {}; }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  /**
   * `work`'s value, or the reason this fired first (at once if it has fired already). A rejection of
   * `work` rejects the result. Nothing of the call stays registered after either settles.
   */
  race<T>(work: Promise<T>): Promise<T | R> {
    if (this.why !== undefined) return Promise.resolve(this.why);
    return new Promise<T | R>((resolve, reject) => {
      const waiter = (why: R) => resolve(why);
      this.waiters.add(waiter);
      work.then(
        (v) => { this.waiters.delete(waiter); resolve(v); },
        (e: unknown) => { this.waiters.delete(waiter); reject(e); },
      );
    });
  }
}
