import { systemClock } from '../core/clock';
import { DEFAULT_WATCH_PORT, startWatchServer, type WatchServer } from '../report/live/watch-server';
import { UsageError } from './usage';

/** The `--watch[=PORT]` option of run, ablate and resume, for parseArgs (after `watchArgv`). */
export const WATCH_FLAG_OPTIONS = { watch: { type: 'string' } } as const;

/** Help lines of `--watch`. */
export const WATCH_FLAG_HELP = `  --watch[=PORT]    serve the run live in the browser on 127.0.0.1:PORT (default ${DEFAULT_WATCH_PORT});
                    see "evochamber watch --help" (it can also watch from another terminal)`;

/** parseArgs has no optional values: a bare `--watch` becomes `--watch=` (the default port). */
export function watchArgv(argv: readonly string[]): string[] {
  return argv.map((a) => (a === '--watch' ? '--watch=' : a));
}

/** The port `--watch` asks for, or undefined when it is absent. A UsageError for anything but a port. */
export function watchPort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === '') return DEFAULT_WATCH_PORT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--watch takes a port 0–65535 (--watch=PORT), got "${value}"`);
  return n;
}

/** Share of the run's time the charts may take when the server shares the run's process. */
const IN_PROCESS_RENDER_SHARE = 0.05;

/**
 * Start the watch server of a run started from this process, on loopback; its address on stderr
 * (stdout stays the summary's). `dir` null: the run directory is attached when the run creates it.
 * Events and figures are pushed as committed; the charts are redrawn within 5 % of the run's time
 * (`evochamber watch` from another terminal redraws them more often).
 */
export async function startRunWatch(port: number, dir: string | null): Promise<WatchServer> {
  const server = await startWatchServer(dir, { clock: systemClock, port, renderShare: IN_PROCESS_RENDER_SHARE });
  process.stderr.write(`watch: ${server.url}\n`);
  return server;
}
