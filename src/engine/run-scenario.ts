import path from 'node:path';
import { customAlphabet } from 'nanoid';
import { createActor } from 'xstate';
import { loadPersonaTemplate } from '../individual/persona-template';
import { createModel, useModel } from '../llm/create-model';
import type { LanguageModel } from '../llm/model';
import { SimSideChannel } from '../llm/sim/side-channel';
import { AccountingModel } from '../llm/token-accounting';
import { viewRoster } from '../population/roster';
import { supervisorMachine } from '../population/supervisor-machine';
import { reportAfterRun, type RunReportOption } from '../report/report-after-run';
import { EventLog } from '../store/event-log';
import { RunStore } from '../store/run-store';
import { buildNiches, GraderSet } from '../tasks/niche-registry';
import { taskStream } from '../tasks/stream';
import { systemClock, type Clock } from './clock';
import { runEngine, type Progress } from './engine';
import { getPreset } from './presets';
import { createRng } from './rng';
import { withOverrides, type LoadedScenario } from './scenario';
import { SummaryBuilder, type RunSummary } from './summary';
import { StabilityTracker } from '../population/specialization';

const runSuffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

/** Per-run overrides, as the CLI flags and scripts give them. */
export interface RunOptions {
  readonly variant?: string;
  readonly seed?: number;
  /** Number of tasks in the stream. */
  readonly tasks?: number;
  readonly inFlight?: number;
  /** The run directory itself (default `runs/<scenario>-<variant>-s<seed>-<id>`). */
  readonly outDir?: string;
  /** A model to use instead of the scenario's backend (tests, custom backends). */
  readonly model?: LanguageModel;
  readonly onProgress?: (p: Progress) => void;
  readonly clock?: Clock;
  /** Write the run's report when it finishes (default: yes, into `reports/<run-id>/`); `false` skips it. */
  readonly report?: RunReportOption;
}

/** What a finished run returns. */
export interface RunResult {
  readonly summary: RunSummary;
  readonly runDir: string;
}

/** Apply the per-run overrides to a scenario (re-validated). */
export function applyRunOptions(loaded: LoadedScenario, opts: RunOptions): LoadedScenario {
  return withOverrides(loaded, {
    ...(opts.variant !== undefined ? { variant: opts.variant } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.tasks !== undefined ? { stream: { tasks: opts.tasks } } : {}),
    ...(opts.inFlight !== undefined ? { engine: { inFlight: opts.inFlight } } : {}),
  });
}

/**
 * Run a scenario end to end: build niches and the model, spawn the seed agents under the
 * supervisor, run the stream, write `run.json` and `events.jsonl`, and return the summary.
 * Deterministic under the simulated model for a scenario and seed (apart from runDir and timing).
 */
export async function runScenario(base: LoadedScenario, opts: RunOptions = {}): Promise<RunResult> {
  const loaded = applyRunOptions(base, opts);
  const { scenario } = loaded;
  const preset = getPreset(scenario.variant);
  const clock = opts.clock ?? systemClock;
  const persona = loadPersonaTemplate(scenario.agents.template);
  const graders = new GraderSet({ codeWorkers: scenario.grading.codeWorkers, codeTimeoutMs: scenario.grading.codeTimeoutMs, allowUnsandboxed: scenario.grading.allowUnsandboxed });
  try {
    const niches = buildNiches(scenario.stream.niches, loaded.dir, graders);
    const sideChannel = new SimSideChannel();
    const created = opts.model ? useModel(opts.model, sideChannel) : createModel(scenario, sideChannel);
    const inner = created.model;
    const model = new AccountingModel(inner);
    const runDir = path.resolve(opts.outDir ?? path.join('runs', `${scenario.name}-${scenario.variant}-s${scenario.seed}-${runSuffix()}`));
    const store = await RunStore.create(runDir, { id: path.basename(runDir), createdAt: clock.isoNow(), config: scenario as unknown as Record<string, unknown> });
    const log = new EventLog(path.join(runDir, 'events.jsonl'));
    const dim = (await model.embed(['dimension probe']))[0]!.length;
    const supervisor = createActor(supervisorMachine, {
      input: { dim, synergyEta: scenario.team.synergyEta, synergy0: scenario.team.synergy0 },
    }).start();
    const t0 = clock.now();
    try {
      log.append({ type: 'run.started', scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, tasks: scenario.stream.tasks });
      for (const [id, n] of niches) {
        if (n.skippedRows) log.append({ type: 'dataset.rows-skipped', niche: id, skipped: n.skippedRows });
      }
      const count = preset.pool === 'one' ? 1 : scenario.agents.count;
      for (let i = 0; i < count; i++) {
        const id = `agent-${String(i + 1).padStart(2, '0')}`;
        supervisor.send({
          type: 'SPAWN_AGENT',
          input: { id, persona: persona.persona, dim, eta: scenario.memory.eta, c0: scenario.memory.c0, origin: { kind: 'seed', parents: [], poolVersion: 0 } },
        });
        log.append({ type: 'agent.spawned', agentId: id, origin: 'seed', persona: persona.persona });
      }
      const summary = new SummaryBuilder(scenario.stream.niches.map((n) => n.id));
      const tracker = new StabilityTracker(scenario.population.lifecycle.specialist.stableWindows);
      const lineage = { genesis: 0, fork: 0, merge: 0, prune: 0, specialize: 0 };
      await runEngine({
        scenario, preset, model, niches, summary, supervisor, log, sideChannel: created.sideChannel,
        tasks: taskStream({ ...scenario.stream, entries: scenario.stream.niches, niches, seed: scenario.seed }),
        total: scenario.stream.tasks,
        rng: createRng(`${scenario.seed}/engine`),
        onProgress: opts.onProgress,
        tracker, lineage, firstNewAgent: count + 1,
      });
      const roster = viewRoster(supervisor.getSnapshot().context.agents, false);
      const wallSeconds = (clock.now() - t0) / 1000;
      const result = summary.build({
        scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, backend: inner.name, inFlight: scenario.engine.inFlight,
        agents: {
          count: roster.length,
          active: roster.filter((r) => r.status === 'active').length,
          lessons: roster.reduce((a, r) => a + r.archive.size() - r.archive.metaSize(), 0),
          metaInsights: roster.reduce((a, r) => a + r.archive.metaSize(), 0),
        },
        tokens: model.report(),
        poolVersion: supervisor.getSnapshot().context.poolVersion,
        leadlearnEntries: supervisor.getSnapshot().context.bank.size,
        specialists: Object.fromEntries(Object.entries(tracker.history().at(-1) ?? {}).map(([n, a]) => [n, a ? [a] : []])),
        stableSpecialists: tracker.count(),
        lineage,
        runDir,
        timing: { wallSeconds: Math.round(wallSeconds * 1000) / 1000, tasksPerSecond: Math.round((scenario.stream.tasks / Math.max(wallSeconds, 1e-9)) * 10) / 10 },
        ...(created.endpointUsage() ? { endpoints: created.endpointUsage() } : {}),
      });
      log.append({ type: 'run.finished', accuracy: result.accuracy, tasks: result.tasks });
      log.close();
      await store.update({ status: 'finished', summary: result as unknown as Record<string, unknown> });
      const reportPath = await reportAfterRun(runDir, opts.report, clock);
      if (reportPath) {
        result.reportPath = reportPath;
        await store.update({ summary: result as unknown as Record<string, unknown> });
      }
      return { summary: result, runDir };
    } catch (err) {
      log.append({ type: 'run.failed', error: String((err as Error)?.message ?? err) });
      log.close();
      await store.update({ status: 'failed', error: String((err as Error)?.message ?? err) });
      throw err;
    } finally {
      supervisor.stop();
      await created.close();
    }
  } finally {
    await graders.close();
  }
}
