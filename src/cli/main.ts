#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT } from './exit-codes';
import { negativeNumbersAsValues, parseErrorLine, UsageError } from './usage';

const HELP = `Usage: evochamber <command> [options]

Commands:
  run <scenario>     run a scenario's task stream (simulated model by default)
  resume <run-dir>   continue an interrupted or crashed run (or ablation)
  ablate <scenario>  run variants over seeds and compare them (mean ± sd)
  plan <scenario>    predict a run's or a sweep's calls, tokens, GPU-hours and cost
  calibrate <scenario>  fit the simulator's world to measured baselines (--targets or --from-runs)
  predict <world> <scenario>…  write a pre-registered, hashed prediction (score it: ablate --score)
  inspect <run-dir>  show a run's status and summary
  report <run-dir>   write a run's (or an ablate output's) HTML, Markdown and JSON report
  compare <A> <B> …  put runs or ablations made separately side by side, with paired statistics
  export <run-dir>   write a run's (or an ablation's) tables as Parquet or CSV, for a notebook
  schema events      print the JSON Schema of a line of events.jsonl (every event type)
  watch <run-dir>    watch a run (or an ablation) live in the browser, on 127.0.0.1
  serve-sim          serve the simulated model as an OpenAI-compatible HTTP API
  worker             run queued ablation jobs (ablate --queue) from Redis, on any machine

Run "evochamber <command> --help" for a command's options; "evochamber --version" for the version.
`;

/** The package's version, from its package.json (two folders up from src/cli/ and from dist/cli/ alike). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** A command: what it runs (resolving to its exit code, see exit-codes.ts; nothing means 0) and its help. */
interface Command {
  run: (argv: string[]) => Promise<number | void>;
  help: string;
}

/**
 * Each command's module is imported only when that command runs, so `evochamber --help` (and a
 * light command) never loads the engine, mathjs or vega: see test/bench/cli-startup.bench.ts.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => { const m = await import('./commands/run'); return { run: m.runCommand, help: m.RUN_HELP }; },
  resume: async () => { const m = await import('./commands/resume'); return { run: m.resumeCommand, help: m.RESUME_HELP }; },
  ablate: async () => { const m = await import('./commands/ablate'); return { run: m.ablateCommand, help: m.ABLATE_HELP }; },
  plan: async () => { const m = await import('./commands/plan'); return { run: m.planCommand, help: m.PLAN_HELP }; },
  calibrate: async () => { const m = await import('./commands/calibrate'); return { run: m.calibrateCommand, help: m.CALIBRATE_HELP }; },
  predict: async () => { const m = await import('./commands/predict'); return { run: m.predictCommand, help: m.PREDICT_HELP }; },
  inspect: async () => { const m = await import('./commands/inspect'); return { run: m.inspectCommand, help: m.INSPECT_HELP }; },
  report: async () => { const m = await import('./commands/report'); return { run: m.reportCommand, help: m.REPORT_HELP }; },
  compare: async () => { const m = await import('./commands/compare'); return { run: m.compareCommand, help: m.COMPARE_HELP }; },
  export: async () => { const m = await import('./commands/export'); return { run: m.exportCommand, help: m.EXPORT_HELP }; },
  schema: async () => { const m = await import('./commands/schema'); return { run: m.schemaCommand, help: m.SCHEMA_HELP }; },
  watch: async () => { const m = await import('./commands/watch'); return { run: m.watchCommand, help: m.WATCH_HELP }; },
  'serve-sim': async () => { const m = await import('./commands/serve-sim'); return { run: m.serveSimCommand, help: m.SERVE_SIM_HELP }; },
  worker: async () => { const m = await import('./commands/worker'); return { run: m.workerCommand, help: m.WORKER_HELP }; },
};

/** The CLI entry point: dispatches a command; one clear error line and a non-zero exit on failure. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--version' || cmd === '-V' || cmd === 'version') {
    process.stdout.write(`evochamber ${packageVersion()} (node ${process.versions.node})\n`);
    return EXIT.ok;
  }
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return cmd ? 0 : 2;
  }
  const load = COMMANDS[cmd];
  let command: Command | undefined;
  try {
    if (!load) throw new UsageError(`unknown command "${cmd}" (commands: ${Object.keys(COMMANDS).join(', ')})`, HELP);
    (await import('./composition')).useBuiltinPlugins();
    command = await load();
    try {
      return (await command.run(negativeNumbersAsValues(rest))) ?? EXIT.ok;
    } finally {
      // --otel, --otel-file: export the last spans before the process ends (nothing when tracing is off).
      await (await import('./otel-flag')).stopOtel();
    }
  } catch (err) {
    const e = err as Error & { code?: string };
    // A command-line mistake is one line (never the help: it would bury the line), exit 2.
    if (err instanceof UsageError || e.code?.startsWith('ERR_PARSE_ARGS')) {
      const where = load && command ? `evochamber ${cmd} --help` : 'evochamber --help';
      // Loaded only on a mistake: --help and --version load nothing of the engine.
      const { nearestKey } = await import('../engine/scenario/scenario-keys');
      const line = err instanceof UsageError ? oneLine(e.message) : parseErrorLine(e, command?.help, nearestKey);
      process.stderr.write(`evochamber: error: ${line} (see ${where})\n`);
      return EXIT.usage;
    }
    const msg = e.message ?? String(err);
    process.stderr.write(`evochamber: error: ${msg}\n`);
    if (process.env.EVOCHAMBER_DEBUG && e.stack) process.stderr.write(`${e.stack}\n`);
    return EXIT.error;
  }
}

/** Node's parse errors span lines (the mistake, then a hint): one line, the hint kept. */
function oneLine(s: string): string {
  return s.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
}

/**
 * A reader that stops reading (`evochamber inspect … | head`) closes the pipe: stop writing and end
 * quietly with the exit code so far, instead of an unhandled EPIPE.
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      throw err;
    });
  }
}

/** Run the CLI as a process: `bin/evochamber.js` (on dist/) and `tsx src/cli/main.ts` both end here. */
export async function runCli(argv: string[]): Promise<void> {
  quietOnClosedPipe();
  const code = await main(argv);
  // An interrupted run may leave abandoned requests or timers behind: exit now, everything is on disk.
  if (code === EXIT.interrupted) process.exit(code);
  process.exitCode = code;
}

/** True when this file is the process's entry (`tsx src/cli/main.ts`, `node dist/cli/main.js`), not an import. */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) void runCli(process.argv.slice(2));
