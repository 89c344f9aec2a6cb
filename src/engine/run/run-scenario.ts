import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { customAlphabet } from 'nanoid';
import { loadPersonaTemplate } from '../../individual/persona-template';
import { JOURNAL_FILE } from '../../llm/request-journal';
import type { LanguageModel } from '../../llm/model';
import { RunLock, RunLockedError, lockLiveness, readRunLock } from '../../store/run-lock';
import { RunStore, runState } from '../../store/run-store';
import { buildNiches, GraderSet } from '../../tasks/niche-registry';
import type { Niche } from '../../tasks/niche';
import type { Grader } from '../../tasks/task';
import { systemClock, type Clock } from '../../core/clock';
import type { Progress } from '../loop/engine';
import { getPreset } from '../scenario/presets';
import { parseScenario, ScenarioError, type LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch, pathsOutside, refuseScenarioOptions, RUN_SETTINGS } from '../scenario/apply-patch';
import { mergePatches } from '../../core/scenario-patch';
import type { RunSummary } from '../loop/summary';
import { structureRegistry } from '../../team/structures';
import type { StructureDescriptor } from '../../team/structures/structure';
import type { ModelPlugin, VirtualLatency } from '../scenario/model-plugins';
import { backendFor } from './model-stack';
import { runInDir } from './run-lifecycle';
import type { BudgetStop } from '../loop/budget';
import { checkOutDir, recordRunDir, RUN_OUTPUTS } from './out-dir';
import { verdictDirFor } from '../../tasks/graders/verdict-disk';
import { traceRun, type RunTraceTime } from '../../core/tracing/tracing';
import { ATTR_RUN_DIR, ATTR_RUN_ID, ATTR_SCENARIO, ATTR_SEED, ATTR_VARIANT, ATTR_VIRTUAL_TIME } from '../../core/tracing/semconv';

const runSuffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

export type { StopOptions, ExtensionOptions, AfterRun, RunOptions, ResumeOptions, RunResult } from './run-options';
import type { RunOptions, ResumeOptions, RunResult } from './run-options';

/** `--out` names a directory that already holds a run. */
export class RunDirExistsError extends Error {
  constructor(dir: string, status: string) {
    super(`${dir} already holds a run (${status}): continue it with "evochamber resume ${dir}", or pick a new --out (--force replaces it)`);
    this.name = 'RunDirExistsError';
  }
}

/**
 * Run a scenario end to end: build niches and the model, spawn the seed agents under the
 * supervisor, run the stream, write `run.json`, `events.jsonl` and `journal.jsonl`, and return
 * the summary. Deterministic under the simulated model for a scenario and seed (apart from runDir
 * and timing). Refuses an `outDir` that already holds a run unless `force`.
 */
export async function runScenario(base: LoadedScenario, opts: RunOptions = {}): Promise<RunResult> {
  refuseScenarioOptions(opts, 'runScenario', RUN_SETTINGS);
  const loaded = applyScenarioPatch(base, opts.patch);
  const { scenario } = loaded;
  const runDir = path.resolve(opts.outDir ?? path.join('runs', `${scenario.name}-${scenario.variant}-s${scenario.seed}-${runSuffix()}`));
  return executeRun(loaded, runDir, opts, null);
}

/**
 * Continue an interrupted or crashed run in its own directory. The stream is re-executed from
 * the start with every model call already answered served from the run's request journal, which
 * rebuilds the whole pool state (archives, competence, synergy, leadership bank, roster, lineage,
 * rng streams, summary) without paying for a finished call twice; the re-executed events are
 * checked against the durable part of `events.jsonl` (a divergence is an error), then the run
 * goes on appending. Under the simulated model the final summary equals an uninterrupted run's.
 */
export async function resumeRun(runDir: string, opts: ResumeOptions = {}): Promise<RunResult> {
  refuseScenarioOptions(opts, 'resumeRun', RUN_SETTINGS);
  const dir = path.resolve(runDir);
  if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${runDir}: no run to resume (no run.json)`);
  const store = await RunStore.open(dir);
  const { state, lock } = runState(dir, store.data.status);
  if (state === 'finished') throw new Error(`${runDir}: the run already finished; nothing to resume`);
  if (lock && lockLiveness(lock) !== 'dead' && state === 'running') throw new RunLockedError(runDir, lock, lockLiveness(lock));
  let loaded = parseScenario(store.data.config, path.join(dir, 'run.json'), store.data.scenarioDir ?? process.cwd());
  if (opts.patch && Object.keys(opts.patch).length > 0) {
    // Only the budget and the world may change on the way: anything else would diverge from the journal.
    const refused = pathsOutside(opts.patch, ['budget', 'sim.world']);
    if (refused.length) throw new Error(`${runDir}: a resume may change only the budget and the world, not ${refused.join(', ')}`);
    // The new budget replaces the old one for good: a later resume (and the reproduce command) keeps it.
    loaded = applyScenarioPatch(loaded, opts.patch);
    await store.update({ config: loaded.scenario as unknown as Record<string, unknown>, patch: mergePatches(store.data.patch, opts.patch) });
  }
  return executeRun(loaded, dir, opts, store);
}

/** Make `dir` ready for a new run: refuse one that holds a run, unless `force` (never a live one). */
function prepareRunDir(dir: string, force: boolean): void {
  if (!RunStore.exists(dir)) return;
  const lock = readRunLock(dir);
  if (lock && lockLiveness(lock) !== 'dead') throw new RunLockedError(dir, lock, lockLiveness(lock));
  if (!force) {
    let status = 'no run.json';
    try {
      status = (JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { status?: string }).status ?? 'unknown status';
    } catch { /* keep the default */ }
    throw new RunDirExistsError(dir, status);
  }
  // Only the run's own outputs go (store/output-dir.ts): anything else in the directory stays.
  for (const f of RUN_OUTPUTS) rmSync(path.join(dir, f), { recursive: true, force: true });
}


/**
 * In virtual time, graders are real work outside it: the clock stands still while any of a
 * grader's async methods runs (grade, and the code grader's public tests).
 */
function holdGraders(niches: Map<string, Niche>, latency: VirtualLatency | undefined): Map<string, Niche> {
  if (!latency) return niches;
  const held = (g: Grader): Grader => new Proxy(g, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const out: unknown = (v as (...a: unknown[]) => unknown).apply(target, args);
        return out instanceof Promise ? latency.hold(out) : out;
      };
    },
  });
  return new Map([...niches].map(([id, n]) => [id, { ...n, grader: held(n.grader) }]));
}

/**
 * The clock a run's spans are stamped by (tracing on): milliseconds since the epoch, from the run's
 * start; in virtual time the start plus the virtual seconds, so a span's length is virtual (docs/tracing.md).
 */
function runTraceTime(clock: Clock, latency: VirtualLatency | undefined, attributes: RunTraceTime['attributes']): RunTraceTime {
  const origin = Date.parse(clock.isoNow());
  const t0 = clock.now();
  return {
    now: latency ? () => origin + latency.now() * 1000 : () => origin + (clock.now() - t0),
    attributes: { ...attributes, [ATTR_VIRTUAL_TIME]: latency !== undefined },
  };
}

/** Build what a run needs, check it before anything is written, then run it in its directory. */
async function executeRun(loaded: LoadedScenario, runDir: string, opts: RunOptions, resumed: RunStore | null): Promise<RunResult> {
  const { scenario } = loaded;
  const preset = getPreset(scenario.variant);
  const structures = structureRegistry(opts.structures);
  if (!structures.has(preset.structure)) throw new Error(`variant "${preset.name}": unknown structure "${preset.structure}"`);
  const unknownOffered = scenario.team.offered?.find((s) => !structures.get(s)?.choosable);
  if (unknownOffered !== undefined) throw new ScenarioError(loaded.file, 'team.offered', `"${unknownOffered}" is not a structure a leader can choose (${[...structures.values()].filter((s) => s.choosable).map((s) => s.name).join(', ')})`);
  const clock = opts.clock ?? systemClock;
  const persona = loadPersonaTemplate(scenario.agents.template);
  const replaySource = opts.replayFrom ? path.join(path.resolve(opts.replayFrom), JOURNAL_FILE) : undefined;
  if (replaySource && !existsSync(replaySource)) throw new Error(`${opts.replayFrom}: no ${JOURNAL_FILE} to replay from`);
  if (!resumed) checkOutDir(runDir);
  const backend = opts.shared ? opts.shared.backend.forRun(scenario, opts.shared.key) : backendFor(scenario, opts);
  try {
    // The sandbox's threat is model-written code. The in-process simulator's programs are the niche's own
    // reference and distractor programs, so a missing bubblewrap does not stop it (it still warns); any
    // real backend, an injected model or a replayed journal needs bubblewrap or the scenario's opt-in.
    const graders = new GraderSet({
      codeWorkers: scenario.grading.codeWorkers, codeTimeoutMs: scenario.grading.codeTimeoutMs,
      allowUnsandboxed: scenario.grading.allowUnsandboxed || !backend.modelWrittenCode,
      verdictDir: verdictDirFor(scenario.grading.verdictCache, loaded.dir) ?? undefined,
    });
    try {
      const niches = holdGraders(buildNiches(scenario.stream.niches, loaded.dir, graders), backend.latency);
      // Before anything is written: a wrong address fails in seconds with one line.
      for (const line of (await backend.probe()) ?? []) opts.onNotice?.(line);
      if (!resumed) { prepareRunDir(runDir, opts.force ?? false); recordRunDir(runDir); }
      const store = resumed ?? await RunStore.create(runDir, {
        id: path.basename(runDir), createdAt: clock.isoNow(), config: scenario as unknown as Record<string, unknown>, patch: opts.patch ?? {}, scenarioDir: loaded.dir,
      });
      opts.onRunDir?.(runDir);
      const lock = RunLock.acquire(runDir, clock.isoNow());
      try {
        if (resumed) await store.update({ status: 'running', error: null, resumes: (store.data.resumes ?? 0) + 1 });
        return await traceRun(runTraceTime(clock, backend.latency, { [ATTR_RUN_ID]: store.data.id, [ATTR_RUN_DIR]: runDir, [ATTR_SCENARIO]: scenario.name, [ATTR_VARIANT]: scenario.variant, [ATTR_SEED]: scenario.seed }),
          `run ${scenario.name}/${scenario.variant}/s${scenario.seed}`, { 'evochamber.resumed': resumed !== null },
          () => runInDir({ loaded, preset, structures, clock, persona, niches, backend, store, lock, runDir, opts, resumed: resumed !== null, replaySource }));
      } finally {
        lock.release();
      }
    } finally {
      await graders.close();
    }
  } finally {
    await backend.close();
  }
}
