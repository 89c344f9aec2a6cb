import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { lockLiveness, readRunLock, type RunLockInfo } from './run-lock';
import { valueAt } from '../core/scenario-patch';
import { EVENTS_FILE, EVENTS_VERSION } from './events';

/** Version of `run.json`; bump with a migration when its shape changes (2: the run's `patch`). */
export const RUN_SCHEMA_VERSION = 2;

/**
 * Lifecycle of a run as written in run.json: `interrupted` (stopped cleanly, resumable) and
 * `budget` (stopped cleanly because its budget was spent; resumable with a larger one).
 */
export type RunStatus = 'running' | 'finished' | 'failed' | 'interrupted' | 'budget';

/** What `inspect` shows: run.json's status, with `running` split by the lock into live and `crashed`. */
export type RunState = 'running' | 'interrupted' | 'budget' | 'crashed' | 'finished' | 'failed';

/** The contents of `run.json`. */
export interface RunFile {
  schemaVersion: number;
  /**
   * Version of the event catalogue `events.jsonl` was written with (src/store/events/catalogue.ts);
   * absent in runs made before the catalogue, whose events have version 1's shapes.
   */
  eventsVersion?: number;
  id: string;
  createdAt: string;
  status: RunStatus;
  /** The validated scenario with overrides applied: enough to reproduce the run. */
  config: Record<string, unknown>;
  /**
   * What the run changed in the scenario it was given, keyed by path (a ScenarioPatch,
   * core/scenario-patch.ts): its reproduce command is the scenario file plus this patch.
   */
  patch: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  error: string | null;
  /** Directory the scenario's relative paths (datasets) resolve against; resume needs it. */
  scenarioDir?: string;
  /** Tasks committed and in the stream, as of the last status change (interrupted runs). */
  progress?: { committed: number; total: number };
  /** Why an interrupted run stopped (`signal SIGINT`, `endpoint outage`). */
  interruptReason?: string;
  /** Times this run was resumed. */
  resumes?: number;
  /** A run stopped by its budget: the limit it hit and what committed work had spent. */
  budgetStop?: { limit: string; budget: number; spent: number; projected: number };
}

/** `run.json` through lowdb. Single writer: the engine. */
export class RunStore {
  private constructor(private readonly db: Low<RunFile>, readonly dir: string) {}

  /** Create the run directory and its `run.json`. */
  static async create(dir: string, init: Omit<RunFile, 'schemaVersion' | 'status' | 'summary' | 'error' | 'patch'> & { patch?: RunFile['patch'] }): Promise<RunStore> {
    mkdirSync(dir, { recursive: true });
    const data: RunFile = { schemaVersion: RUN_SCHEMA_VERSION, eventsVersion: EVENTS_VERSION, status: 'running', summary: null, error: null, patch: {}, ...init };
    // Not JSONFilePreset: under NODE_ENV=test it swaps in a memory adapter and writes nothing.
    const db = new Low<RunFile>(new JSONFile(path.join(dir, 'run.json')), data);
    await db.write();
    return new RunStore(db, dir);
  }

  /** Open an existing run directory; fails clearly on a newer or unknown schema. */
  static async open(dir: string): Promise<RunStore> {
    const db = new Low<RunFile | null>(new JSONFile(path.join(dir, 'run.json')), null);
    await db.read();
    const data = db.data;
    if (!data) throw new Error(`${dir}: no run.json (is this a run directory?)`);
    if (data.schemaVersion === 1) db.data = migrateV1(data);
    else if (data.schemaVersion !== RUN_SCHEMA_VERSION) {
      throw new Error(`${dir}/run.json: schemaVersion ${data.schemaVersion} is not supported (this EvoChamber reads ${RUN_SCHEMA_VERSION} and 1)`);
    }
    return new RunStore(db as Low<RunFile>, dir);
  }

  /** True when `dir` already holds a run (run.json or events.jsonl). */
  static exists(dir: string): boolean {
    return existsSync(path.join(dir, 'run.json')) || existsSync(path.join(dir, EVENTS_FILE));
  }

  /** The current contents. */
  get data(): Readonly<RunFile> {
    return this.db.data;
  }

  /** Merge fields into run.json and write it. */
  async update(patch: Partial<RunFile>): Promise<void> {
    Object.assign(this.db.data, patch);
    await this.db.write();
  }

  /** Merge fields and write synchronously (temp file and rename): for the way out of a signal handler. */
  updateSync(patch: Partial<RunFile>): void {
    Object.assign(this.db.data, patch);
    const file = path.join(this.dir, 'run.json');
    writeFileSync(`${file}.tmp`, JSON.stringify(this.db.data, null, 2));
    renameSync(`${file}.tmp`, file);
  }
}

/**
 * The settings a version-1 run.json's reproduce command named (variant, seed, tasks, tasks in flight,
 * staleness, evolve timing, the model, the budget and prices), as the run's patch: version 1 kept no
 * patch, only the scenario with every override applied. Read from that scenario; none is invented.
 */
const V1_RUN_PATHS = ['variant', 'seed', 'stream.tasks', 'engine.inFlight', 'engine.staleness', 'engine.evolveTiming', 'model', 'budget', 'prices'] as const;

/** A version-1 run.json as version 2 (in memory; written as 2 at the next update). */
function migrateV1(v1: RunFile): RunFile {
  const patch = Object.fromEntries(V1_RUN_PATHS.map((p) => [p, valueAt(v1.config, p)]).filter(([, v]) => v !== undefined));
  return { ...v1, schemaVersion: RUN_SCHEMA_VERSION, patch };
}

/** The state `inspect` shows, from run.json's status and the lock's liveness, with the lock when there is one. */
export function runState(dir: string, status: RunStatus): { state: RunState; lock: RunLockInfo | null; checkable: boolean } {
  const lock = readRunLock(dir);
  if (status !== 'running') return { state: status, lock, checkable: true };
  if (!lock) return { state: 'crashed', lock, checkable: true };
  const l = lockLiveness(lock);
  return { state: l === 'dead' ? 'crashed' : 'running', lock, checkable: l !== 'unknown' };
}
