import { existsSync } from 'node:fs';
import path from 'node:path';
import { EVENTS_FILE } from '../store/events';
import { RunStore, type RunFile } from '../store/run-store';

/** A run directory opened for reporting: its `run.json` and where its log is. */
export interface RunDirectory {
  readonly dir: string;
  readonly run: Readonly<RunFile>;
  readonly eventsFile: string;
}

/** Open a run directory for reporting; fails clearly when it is not one. */
export async function openRunDirectory(dir: string): Promise<RunDirectory> {
  const abs = path.resolve(dir);
  if (!existsSync(abs)) throw new Error(`${dir}: no such directory`);
  const store = await RunStore.open(abs);
  const eventsFile = path.join(abs, EVENTS_FILE);
  if (!existsSync(eventsFile)) throw new Error(`${dir}: no events.jsonl (the report is built from the event log)`);
  return { dir: abs, run: store.data, eventsFile };
}
