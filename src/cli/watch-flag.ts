import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { END_GRACE_MS } from '../report/live/watch-end';
import { UsageError } from './usage';

/** Default port of `evochamber watch` and `--watch` (the server's own default). */
const DEFAULT_PORT = 7420;

/** The `--watch[=PORT]` option of run, ablate and resume, for parseArgs (after `watchArgv`). */
export const WATCH_FLAG_OPTIONS = { watch: { type: 'string' } } as const;

/** Help lines of `--watch`. */
export const WATCH_FLAG_HELP = `  --watch[=PORT]    serve the run live in the browser on 127.0.0.1:PORT (default ${DEFAULT_PORT});
                    see "evochamber watch --help" (it can also watch from another terminal)`;

/** The CLI entry beside this file (`main.ts` under tsx, `main.js` in dist/). */
const CLI_ENTRY = fileURLToPath(new URL(`./main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

/** parseArgs has no optional values: a bare `--watch` becomes `--watch=` (the default port). */
export function watchArgv(argv: readonly string[]): string[] {
  return argv.map((a) => (a === '--watch' ? '--watch=' : a));
}

/** The port `--watch` asks for, or undefined when it is absent. A UsageError for anything but a port. */
export function watchPort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === '') return DEFAULT_PORT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--watch takes a port 0–65535 (--watch=PORT), got "${value}"`);
  return n;
}

/** The watch server of a run (or ablation) started from this process. */
export interface RunWatchHandle {
  /** Serve `dir` (the run's, once it exists; the ablation's, once its plan is written). Once. */
  attach(dir: string): void;
  /** Stop the server (the run is over). */
  close(): Promise<void>;
}

/**
 * `--watch`: `evochamber watch <dir> --port PORT` in a child process, started once the directory
 * exists, so the tailing, folding and chart rendering take another process's time, never the
 * run's. Its address goes to `log` (stderr: stdout stays the summary's). It ends with the run, and
 * with this process if this one is killed (it watches its IPC channel).
 */
export function startRunWatch(port: number, log: (line: string) => void): RunWatchHandle {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  return {
    attach(dir) {
      if (child) return;
      const execArgv = CLI_ENTRY.endsWith('.ts') ? ['--import', 'tsx'] : [];
      const proc = fork(CLI_ENTRY, ['watch', dir, '--port', String(port)], { execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      child = proc;
      exited = new Promise((resolve) => proc.once('exit', () => resolve()));
      let out = '';
      proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const url = /open (http:\/\/\S+)/.exec(out);
        if (url) { log(`watch: ${url[1]}`); out = ''; proc.stdout!.resume(); proc.stdout!.removeAllListeners('data'); }
      });
      proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
        for (const line of d.split('\n')) if (line.trim() && !/ExperimentalWarning|--trace-warnings/.test(line)) log(watchChildLine(line));
      });
    },
    async close() {
      if (!child || child.exitCode !== null) return;
      // The run is over: the child tells its pages how it ended, then exits (killed if it does not, in
      // time: it ignores SIGINT and SIGTERM, which a terminal's Ctrl-C sends it with the run).
      const proc = child;
      if (proc.connected) proc.send({ type: 'run-ended' });
      else proc.kill('SIGKILL');
      const timer = setTimeout(() => proc.kill('SIGKILL'), END_GRACE_MS + 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A line of the watch child's stderr as this command says it: one "watch:" prefix, and the fix in
 * this command's terms (`evochamber: error: watch: port 7420 … (pick another with --port) (see
 * evochamber watch --help)` → `watch: port 7420 … (pick another with --watch=PORT)`).
 */
export function watchChildLine(line: string): string {
  const bare = line.replace(/^evochamber: error: /, '').replace(/^watch: /, '').replace(/ \(see evochamber watch --help\)$/, '');
  return `watch: ${bare.replace('(pick another with --port)', '(pick another with --watch=PORT; the run goes on)')}`;
}
