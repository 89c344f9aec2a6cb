#!/usr/bin/env node
import { ScenarioError } from '../engine/scenario';
import { ABLATE_HELP, ablateCommand } from './commands/ablate';
import { INSPECT_HELP, inspectCommand } from './commands/inspect';
import { REPORT_HELP, reportCommand } from './commands/report';
import { RESUME_HELP, resumeCommand } from './commands/resume';
import { RUN_HELP, runCommand } from './commands/run';
import { SERVE_SIM_HELP, serveSimCommand } from './commands/serve-sim';
import { WORKER_HELP, workerCommand } from './commands/worker';
import { EXIT } from './exit-codes';
import { UsageError } from './usage';

const HELP = `Usage: evochamber <command> [options]

Commands:
  run <scenario>     run a scenario's task stream (simulated model by default)
  resume <run-dir>   continue an interrupted or crashed run (or ablation)
  ablate <scenario>  run variants over seeds and compare them (mean ± sd)
  inspect <run-dir>  show a run's status and summary
  report <run-dir>   write a run's (or an ablate output's) HTML, Markdown and JSON report
  serve-sim          serve the simulated model as an OpenAI-compatible HTTP API
  worker             run queued ablation jobs (ablate --queue) from Redis, on any machine

Run "evochamber <command> --help" for a command's options.
`;

const HELPS: Record<string, string> = { run: RUN_HELP, resume: RESUME_HELP, ablate: ABLATE_HELP, inspect: INSPECT_HELP, report: REPORT_HELP, 'serve-sim': SERVE_SIM_HELP, worker: WORKER_HELP };

/** A command resolves to its exit code (see exit-codes.ts); nothing means 0. */
const COMMANDS: Record<string, (argv: string[]) => Promise<number | void>> = {
  run: runCommand,
  resume: resumeCommand,
  ablate: ablateCommand,
  inspect: inspectCommand,
  report: reportCommand,
  'serve-sim': serveSimCommand,
  worker: workerCommand,
};

/** The CLI entry point: dispatches a command; one clear error line and a non-zero exit on failure. */
export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return cmd ? 0 : 2;
  }
  const run = COMMANDS[cmd];
  try {
    if (!run) throw new UsageError(`unknown command "${cmd}" (commands: ${Object.keys(COMMANDS).join(', ')})`, HELP);
    return (await run(rest)) ?? EXIT.ok;
  } catch (err) {
    const e = err as Error & { code?: string };
    if (err instanceof UsageError) {
      process.stderr.write(`evochamber: error: ${e.message}\n${err.help ?? ''}`);
      return EXIT.usage;
    }
    if (e.code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`evochamber: error: ${e.message}\n${HELPS[cmd] ?? ''}`);
      return EXIT.usage;
    }
    const msg = err instanceof ScenarioError ? e.message : (e.message ?? String(err));
    process.stderr.write(`evochamber: error: ${msg}\n`);
    if (process.env.EVOCHAMBER_DEBUG && e.stack) process.stderr.write(`${e.stack}\n`);
    return EXIT.error;
  }
}

const isEntry = process.argv[1] !== undefined && /cli[\\/]main\.ts$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
