import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../../core/clock';
import { isLoopbackHost } from '../../core/loopback';
import { checkWatchDir, DEFAULT_WATCH_PORT, startWatchServer } from '../../report/live/watch-server';
import { UsageError, intFlag } from '../usage';

/** Help text of `evochamber watch`. */
export const WATCH_HELP = `Usage: evochamber watch <run-dir | ablate-dir> [--port N] [--host ADDR]

Serve a run live in the browser: progress and ETA, rolling accuracy per niche, the competence
heatmap, the roster with roles and specialists, structure choices, CoDream sessions and who taught
whom, lineage, tokens and cost, failures and fallbacks, the in-flight window — the report's charts,
redrawn as events are committed. Events are pushed (Server-Sent Events) as the run commits them, from
this process or any other: a running run, a resumed one, a finished one. Given an ablation's
directory, a table of its runs; click one to watch it. Stop with Ctrl-C.

Security: binds 127.0.0.1 by default (only this machine can connect). Any other --host requires a
token, printed once here and checked on every request; a request without it gets 401.

Options:
  --port N     port to listen on (default ${DEFAULT_WATCH_PORT}; 0 picks a free one)
  --host ADDR  address to bind (default 127.0.0.1); off loopback, a token is required
  --token T    the token to require (default: a random one when --host is off loopback)
`;

/** `evochamber watch`: serves until SIGINT or SIGTERM. */
export async function watchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) { process.stdout.write(WATCH_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('watch takes exactly one run or ablation directory', WATCH_HELP);
  const port = intFlag(values.port, '--port', 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port takes a port 0–65535, got "${values.port}"`);
  if (values.token !== undefined && values.token.length < 16) throw new UsageError('--token must be at least 16 characters');
  const dir = positionals[0]!;
  checkWatchDir(dir);
  const host = values.host ?? '127.0.0.1';
  let server;
  try {
    server = await startWatchServer(dir, { clock: systemClock, host, port, token: values.token });
  } catch (err) {
    // A port in use is a command-line mistake, as in serve-sim: pick another.
    if (/ is in use /.test((err as Error).message)) throw new UsageError((err as Error).message, WATCH_HELP);
    throw err;
  }
  process.stdout.write(`watching ${path.resolve(dir)}\n  open ${server.url}\n`);
  if (server.token !== null) {
    process.stdout.write(`  bound to ${host}${isLoopbackHost(host) ? '' : ' (off loopback)'}: every request needs the token above (?token=… or "Authorization: Bearer …"); it is shown only here\n`);
  }
  // Ctrl-C stops watching, not the run: pages are told nothing. Started by `--watch` (an IPC channel to
  // the run's process), the run's end (its "end" message, or the channel closing when it was killed)
  // is the run's: pages are told how it ended before the server goes.
  const byRun = process.connected;
  const runEnded = await new Promise<boolean>((resolve) => {
    // A `--watch` child outlives a Ctrl-C sent to its terminal's process group: the run says when it is over.
    process.on('SIGINT', () => { if (!byRun) resolve(false); });
    process.on('SIGTERM', () => { if (!byRun) resolve(false); });
    process.once('disconnect', () => resolve(true));
    process.on('message', (m: { type?: string }) => { if (m?.type === 'run-ended') resolve(true); });
  });
  await server.close({ runEnded });
  // The IPC channel to a `--watch` parent would keep this process alive, and that parent waits for it.
  if (process.connected) process.disconnect?.();
}
