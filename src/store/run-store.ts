import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';

/** Version of `run.json`; bump with a migration when its shape changes. */
export const RUN_SCHEMA_VERSION = 1;

/** Lifecycle of a run. */
export type RunStatus = 'running' | 'finished' | 'failed';

/** The contents of `run.json`. */
export interface RunFile {
  schemaVersion: number;
  id: string;
  createdAt: string;
  status: RunStatus;
  /** The validated scenario with overrides applied: enough to reproduce the run. */
  config: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  error: string | null;
}

/** `run.json` through lowdb. Single writer: the engine. */
export class RunStore {
  private constructor(private readonly db: Low<RunFile>, readonly dir: string) {}

  /** Create the run directory and its `run.json`. */
  static async create(dir: string, init: Omit<RunFile, 'schemaVersion' | 'status' | 'summary' | 'error'>): Promise<RunStore> {
    mkdirSync(dir, { recursive: true });
    const data: RunFile = { schemaVersion: RUN_SCHEMA_VERSION, status: 'running', summary: null, error: null, ...init };
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
    if (data.schemaVersion !== RUN_SCHEMA_VERSION) {
      throw new Error(`${dir}/run.json: schemaVersion ${data.schemaVersion} is not supported (this EvoChamber reads ${RUN_SCHEMA_VERSION})`);
    }
    return new RunStore(db as Low<RunFile>, dir);
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
}
