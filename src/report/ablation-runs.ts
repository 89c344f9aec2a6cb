import { existsSync } from 'node:fs';
import path from 'node:path';
import { RunTraceCollector, type RunTrace } from './collect/run-trace-collector';
import { EVENTS_FILE, readRunEvents } from '../store/events';
import { RunStore } from '../store/run-store';

/** What a run directory of an ablation gives its report: the fold of its log, and its summary's counts when it finished. */
export interface RunFigures {
  /** Null when the directory or its log is not here (a queued run on a worker's disk) or cannot be read. */
  readonly trace: RunTrace | null;
  readonly codream?: { readonly sessions: number; readonly insights: number; readonly routed: number };
  readonly lineage?: Readonly<Record<string, number>>;
}

interface SummaryCounts {
  codream?: { sessions: number; insights: number; routed: number };
  lineage?: Record<string, number>;
}

/** Fold one run directory's event log for the comparison of variants; never throws. */
export async function readRunTrace(runDir: string, onProgress?: (p: { phase: 'read'; file: string; bytesRead: number; totalBytes: number }) => void): Promise<RunFigures> {
  const events = path.join(runDir, EVENTS_FILE);
  if (!existsSync(events)) return { trace: null };
  try {
    const fold = new RunTraceCollector();
    const read = onProgress ? { onProgress: (bytesRead: number, totalBytes: number) => onProgress({ phase: 'read', file: events, bytesRead, totalBytes }) } : {};
    await readRunEvents(runDir, read).forEach((e) => fold.add(e));
    let summary: SummaryCounts | null = null;
    if (existsSync(path.join(runDir, 'run.json'))) summary = (await RunStore.open(runDir)).data.summary as SummaryCounts | null;
    return { trace: fold.trace(), ...(summary?.codream ? { codream: summary.codream } : {}), ...(summary?.lineage ? { lineage: summary.lineage } : {}) };
  } catch {
    return { trace: null };
  }
}
