import type { Completion, CompletionRequest, LanguageModel, NicheSpec, Task } from '../../src/index';
import { SimModel } from '../../src/sim/sim-model';

/**
 * The simulated model, passed through: it keeps the simulator's side channel (tasks started and
 * ended), so every request it passes on is answered as the simulator answers. Tests extend it to
 * record what a stage is shown (override `complete` and call `super.complete`) or to replace a
 * stage's replies.
 */
export class SimPassThrough implements LanguageModel {
  readonly name = 'sim';
  readonly sim: SimModel;
  constructor(sim: number | SimModel) { this.sim = typeof sim === 'number' ? new SimModel({ seed: sim }) : sim; }
  taskStarted(t: Task, n: NicheSpec): void { this.sim.taskStarted(t, n); }
  taskEnded(id: string): void { this.sim.taskEnded(id); }
  complete(req: CompletionRequest): Promise<Completion> { return this.sim.complete(req); }
  embed(texts: readonly string[]): Promise<Float32Array[]> { return this.sim.embed(texts); }
}
