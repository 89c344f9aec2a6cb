import type { Knob } from '../../core/knob';
import type { LanguageModel } from '../../llm/model';
import type { EventLog } from '../../store/event-log';
import type { EventOf, LoggedEvent } from '../../store/events';
import type { StructureRegistry } from '../../team/structures';
import type { Preset } from '../scenario/presets';
import type { LoadedScenario } from '../scenario/scenario';
import type { MetaConfig } from '../scenario/meta-config';
import { askMetaEditor, metaEditorPrompt, type EditRecord, type RunPlan } from './meta-editor';
import { applyPatch, procedureKnobs, procedureOf, procedureViolations, type KnobChange, type Procedure } from './procedure';
import { reportDigest, segmentReport, type SegmentReport } from './segment-report';

/** What the run's summary says about meta-editing. */
export interface MetaTally {
  segments: number;
  accepted: number;
  rejected: number;
  reverts: number;
  /** The procedure version the run ended under. */
  version: number;
  /** Knob changes applied, over all accepted edits. */
  changes: number;
  /**
   * Knob values outside their bounds, summed over every procedure version (each checked against the
   * procedure's schema as it is made; version 0 is the scenario's own). 0 unless the scenario itself
   * sets a value the meta bounds exclude.
   */
  outOfBounds: number;
}

/**
 * The meta-editing harness (AEVO; docs/meta.md). It cuts the run into segments, and at each
 * boundary — the run quiescent: no task or evolve stage in flight — it reports the segment from its
 * events, asks the meta-editor for a patch of the procedure and a plan for the next segment (mode
 * `edit`; in mode `fixed` the procedure never changes, the `no-meta` control), validates the patch
 * against the knobs and their bounds (all or nothing), and keeps every procedure version so an edit
 * can be reverted. The evaluator is out of its reach: graders, gold answers, the stream, the log and
 * budgets are frozen; it only changes the scenario settings its knobs name, for the tasks that start
 * after the boundary. Events: `meta.report` (the report's digest) and `meta.edit` (the diff, the plan,
 * the rationale, accepted or rejected with why). Deterministic under the simulated model; a resume
 * re-executes the edits, checked against the log.
 */
export class MetaHarness {
  private readonly knobs: Knob[];
  private readonly versions: LoadedScenario[];
  private readonly reports: SegmentReport[] = [];
  private readonly history: EditRecord[] = [];
  private segmentEvents: LoggedEvent[] = [];
  private plan: RunPlan;
  private from = 0;
  private spent = 0;
  private rewards: number[] = [];
  private best = -1;
  private sinceBest = 0;
  private cutShort = false;
  /** Calls and tokens of the last boundary's meta call (committed work, for the run's budget). */
  lastCost: Record<string, { calls: number; promptTokens: number; completionTokens: number }> = {};
  readonly tally: MetaTally = { segments: 0, accepted: 0, rejected: 0, reverts: 0, version: 0, changes: 0, outOfBounds: 0 };

  constructor(private readonly o: {
    readonly loaded: LoadedScenario;
    readonly preset: Preset;
    readonly structures: StructureRegistry;
    readonly config: MetaConfig;
    /** `edit`: the meta-editor edits; `fixed`: segments and reports only (the no-meta control). */
    readonly mode: 'edit' | 'fixed';
    readonly model: LanguageModel;
    readonly log: EventLog;
  }) {
    this.knobs = procedureKnobs(o.preset, o.structures);
    this.versions = [o.loaded];
    this.tally.outOfBounds += this.violations(o.loaded);
    this.plan = { tasks: o.config.every };
    o.log.stampProcedure(0);
  }

  /** The scenario the next task starts under. */
  get current(): LoadedScenario {
    return this.versions[this.tally.version]!;
  }

  /** The knobs of this run's procedure. */
  get procedureKnobs(): readonly Knob[] {
    return this.knobs;
  }

  /** Told every event the run appends (the segment report is built from them). */
  observe(e: LoggedEvent): void {
    this.segmentEvents.push(e);
    if (e.type === 'task.graded') this.seeReward(e.reward);
    if (e.type === 'task.done' || e.type === 'evolve.applied' || e.type === 'lifecycle.usage') {
      for (const u of Object.values(e.tokens ?? {})) this.spent += u.promptTokens + u.completionTokens;
    }
  }

  /** Whether task number `index` (0-based, stream order) may start now: not past the segment's end. */
  mayStart(index: number): boolean {
    return !this.cutShort && index < this.from + this.plan.tasks;
  }

  /** Whether the segment has ended once `committed` tasks are committed and `started` started (the run is then quiescent). */
  atBoundary(committed: number, started: number): boolean {
    if (committed !== started) return false;
    if (committed >= this.from + this.plan.tasks) return true;
    // The plan's own stopping conditions end the segment early: no more tasks start, those in flight commit.
    if (this.plan.tokens !== undefined && this.spent >= this.plan.tokens) this.cutShort = true;
    if (this.plan.stopWhenFlatFor !== undefined && this.sinceBest >= this.plan.stopWhenFlatFor) this.cutShort = true;
    return this.cutShort && committed > this.from;
  }

  /**
   * The boundary: report the segment, let the meta-editor edit (mode `edit`), start the next
   * segment. Returns the scenario later tasks start under (the same object when nothing changed).
   */
  async boundary(committed: number): Promise<LoadedScenario> {
    const segment = this.tally.segments + 1;
    const report = segmentReport(this.segmentEvents, { segment, procedureVersion: this.tally.version, fromTask: this.from, toTask: committed - 1 }, this.reports.slice(-this.o.config.history));
    const last = this.history.at(-1);
    if (last && last.after === null) last.after = report.overall.accuracy;
    this.reports.push(report);
    this.tally.segments = segment;
    this.o.log.append({ type: 'meta.report', segment, procedureVersion: this.tally.version, fromTask: this.from, toTask: committed - 1, ...reportDigest(report) });
    this.lastCost = {};
    if (this.o.mode === 'edit') await this.edit(segment, report);
    this.from = committed;
    this.segmentEvents = [];
    this.spent = 0;
    this.rewards = [];
    this.best = -1;
    this.sinceBest = 0;
    this.cutShort = false;
    return this.current;
  }

  private async edit(segment: number, report: SegmentReport): Promise<void> {
    const procedure = procedureOf(this.current, this.knobs, this.o.preset);
    const messages = metaEditorPrompt({ segment, version: this.tally.version, report, knobs: this.knobs, procedure, history: this.history.slice(-this.o.config.history), config: this.o.config });
    const { reply, usage } = await askMetaEditor(this.o.model, messages, segment, this.o.config);
    const tokens = { meta: { calls: 1, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens } };
    this.lastCost = tokens;
    const reject = (reason: string, plan?: RunPlan) => {
      this.tally.rejected++;
      this.history.push({ segment, accepted: false, version: this.tally.version, changes: [], reason, before: report.overall.accuracy, after: null });
      // A rejected reply leaves the procedure as it was; its plan too, when the plan was unreadable.
      this.plan = plan ?? { tasks: this.o.config.every };
      this.o.log.append({ type: 'meta.edit', segment, accepted: false, reason, procedureVersion: this.tally.version, plan: this.plan, tokens });
    };
    if (!reply.ok) { reject(reply.reason); return; }
    let next: LoadedScenario;
    let changes: readonly KnobChange[];
    if (reply.revert !== null) {
      const target = this.versions[reply.revert];
      if (!target) { reject(`revert: there is no procedure version ${reply.revert} (versions 0..${this.versions.length - 1})`, reply.plan); return; }
      const was = procedureOf(this.current, this.knobs, this.o.preset);
      const to = procedureOf(target, this.knobs, this.o.preset);
      changes = this.knobs.filter((k) => JSON.stringify(was[k.path]) !== JSON.stringify(to[k.path])).map((k) => ({ path: k.path, from: was[k.path], to: to[k.path] }));
      next = target;
      this.tally.reverts++;
    } else {
      const r = applyPatch(this.current, reply.patch, this.knobs, procedure);
      if (!r.ok) { reject(r.reason, reply.plan); return; }
      next = r.loaded;
      changes = r.changes;
    }
    this.tally.accepted++;
    this.plan = reply.plan;
    if (changes.length > 0) {
      this.tally.outOfBounds += this.violations(next);
      this.versions.push(next);
      this.tally.version = this.versions.length - 1;
      this.tally.changes += changes.length;
    }
    this.history.push({ segment, accepted: true, version: this.tally.version, changes, before: report.overall.accuracy, after: null });
    const event: EventOf<'meta.edit'> = {
      type: 'meta.edit', segment, accepted: true, procedureVersion: this.tally.version, changes,
      ...(reply.revert !== null ? { revertedTo: reply.revert } : {}), plan: this.plan, rationale: reply.rationale, tokens,
    };
    this.o.log.append(event);
    this.o.log.stampProcedure(this.tally.version);
  }

  /** The procedure now, knob by knob. */
  procedure(): Procedure {
    return procedureOf(this.current, this.knobs, this.o.preset);
  }

  /** How many of a version's knob values lie outside their bounds (its procedure checked against the schema). */
  private violations(version: LoadedScenario): number {
    return procedureViolations(procedureOf(version, this.knobs, this.o.preset), this.knobs).length;
  }

  private seeReward(r: number): void {
    this.rewards.push(r);
    const acc = this.rewards.reduce((a, b) => a + b, 0) / this.rewards.length;
    if (acc > this.best + 1e-12) {
      this.best = acc;
      this.sinceBest = 0;
    } else {
      this.sinceBest++;
    }
  }
}
