import { parseArgs } from 'node:util';
import { SWEEP_QUEUE } from '../../engine/sweep/queue-names';
import { EXIT } from '../exit-codes';
import { queueFlag } from '../queue-flag';
import { UsageError, intFlag } from '../usage';

/** Help text of `evochamber worker`. */
export const WORKER_HELP = `Usage: evochamber worker --queue redis://[:password@]host:port [options]

Take the runs of queued ablations (evochamber ablate --queue …) from Redis and run them, on
any machine that has the project. Each job carries its scenario; the run directory goes under
--runs-root. A worker that dies mid-job loses nothing: its job goes to another worker.

Options:
  --queue URL            the Redis the sweeps are queued on (required; a password is never printed)
  --concurrency N        jobs at once in this process (default 1); jobs over HTTP share one endpoint
                         pool (one cap per endpoint across them) and, with N > 1, run with
                         speculative completion off (its cancellations would depend on the others' timing)
  --runs-root DIR        where run directories go (default runs); a shared directory (NFS) when there is one
  --lock-ms N            a job whose worker is silent this long is taken back (default 30000)
  --stalled-check-ms N   how often this worker looks for such jobs (default 30000)

SIGTERM or Ctrl-C: finish the jobs under way, then exit 0; a second one exits at once with
code 4 (those jobs go to another worker).
`;

/** `evochamber worker`. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      queue: { type: 'string' }, concurrency: { type: 'string' }, 'runs-root': { type: 'string' },
      'lock-ms': { type: 'string' }, 'stalled-check-ms': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(WORKER_HELP); return EXIT.ok; }
  if (positionals.length) throw new UsageError(`worker takes no positional arguments, got "${positionals[0]}"`, WORKER_HELP);
  const target = queueFlag(values.queue, WORKER_HELP);
  const concurrency = intFlag(values.concurrency, '--concurrency', 1) ?? 1;
  let fatal: (line: string) => void = () => {};
  const lost = new Promise<string>((resolve) => { fatal = resolve; });
  const say = (line: string) => process.stdout.write(`worker: ${line}\n`);
  // Loaded here, not at the top: BullMQ and ioredis cost every other command start-up time.
  const { startSweepWorker } = await import('../../engine/sweep/sweep-worker');
  // A retaken job whose run directory survives (a shared --runs-root, or the same machine) continues it.
  const { continueRun } = await import('../../engine/run/continue-run');
  const worker = await startSweepWorker({
    target, concurrency, runsRoot: values['runs-root'],
    resume: (loaded, runDir, opts) => continueRun(loaded, { ...opts, outDir: runDir, takeOverForeignLock: true }),
    lockMs: intFlag(values['lock-ms'], '--lock-ms', 100), stalledCheckMs: intFlag(values['stalled-check-ms'], '--stalled-check-ms', 100),
    log: say, onFatal: (line) => fatal(line),
  });
  say(`${worker.id} on ${target.shown}, queue ${SWEEP_QUEUE}, concurrency ${concurrency}; SIGTERM finishes the jobs under way and exits`);

  let signals = 0;
  let forced: () => void = () => {};
  const second = new Promise<void>((resolve) => { forced = resolve; });
  let first: () => void = () => {};
  const stop = new Promise<void>((resolve) => { first = resolve; });
  const onSignal = () => { if (++signals === 1) first(); else forced(); };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const why = await Promise.race([stop.then(() => 'signal' as const), lost]);
    if (why !== 'signal') {
      process.stderr.write(`evochamber: error: ${why}\n`);
      await worker.close(true);
      return EXIT.error;
    }
    say('finishing the jobs under way (signal again to stop now)');
    const outcome = await Promise.race([worker.close(false).then(() => 'closed' as const), second.then(() => 'forced' as const)]);
    if (outcome === 'forced') {
      // The runs under way hold the event loop; their jobs stall and BullMQ hands them to another worker.
      say('stopped now; the unfinished jobs go to another worker');
      process.exit(EXIT.interrupted);
    }
    say('stopped');
    return EXIT.ok;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
