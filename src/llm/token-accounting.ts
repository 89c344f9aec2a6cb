import type { Completion, CompletionRequest, LanguageModel, Stage } from './model';

/** Per-stage totals: calls made and tokens spent. */
export interface StageUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose backend reported no usable token counts (estimates were counted); absent when 0. */
  unknownUsage?: number;
}

/** Token usage by stage, plus the total. Stage keys appear in first-use order. */
export type TokenReport = Record<string, StageUsage> & { total: StageUsage };

/**
 * Wraps a model and counts calls and tokens per stage. The wrapper is the only place accounting
 * happens, so callers never add usage by hand.
 */
export class AccountingModel implements LanguageModel {
  readonly name: string;
  private readonly byStage = new Map<Stage, StageUsage>();
  /** The same counts per task, until taken for that task's events (lifecycle calls serve no task; see `stage`). */
  private readonly byTask = new Map<string, Map<Stage, StageUsage>>();

  constructor(private readonly inner: LanguageModel) {
    this.name = inner.name;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    const out = await this.inner.complete(req);
    add(this.byStage, req.stage, out);
    if (req.taskId !== undefined && req.stage !== 'lifecycle') {
      let task = this.byTask.get(req.taskId);
      if (!task) this.byTask.set(req.taskId, (task = new Map()));
      add(task, req.stage, out);
    }
    return out;
  }

  /**
   * Calls and tokens by stage spent for one task so far (stages sorted by name), and forget them:
   * the engine takes them when it commits the task, so the task's events carry its cost.
   */
  takeTask(taskId: string): Record<string, StageUsage> {
    const task = this.byTask.get(taskId);
    this.byTask.delete(taskId);
    const out: Record<string, StageUsage> = {};
    for (const stage of [...(task?.keys() ?? [])].sort()) out[stage] = { ...task!.get(stage)! };
    return out;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }

  /** Totals of one stage so far (zeros when unused). */
  stage(stage: Stage): StageUsage {
    return { calls: 0, promptTokens: 0, completionTokens: 0, ...this.byStage.get(stage) };
  }

  /** A copy of the totals so far, stages sorted by name for a stable summary. */
  report(): TokenReport {
    const total: StageUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
    const out: Record<string, StageUsage> = {};
    for (const stage of [...this.byStage.keys()].sort()) {
      const u = this.byStage.get(stage)!;
      out[stage] = { ...u };
      total.calls += u.calls;
      total.promptTokens += u.promptTokens;
      total.completionTokens += u.completionTokens;
      if (u.unknownUsage) total.unknownUsage = (total.unknownUsage ?? 0) + u.unknownUsage;
    }
    return Object.assign(out, { total }) as TokenReport;
  }
}

function add(into: Map<Stage, StageUsage>, stage: Stage, out: Completion): void {
  const u = into.get(stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
  u.calls += 1;
  u.promptTokens += out.usage.promptTokens;
  u.completionTokens += out.usage.completionTokens;
  if (out.usage.unknown !== undefined) u.unknownUsage = (u.unknownUsage ?? 0) + 1;
  into.set(stage, u);
}
