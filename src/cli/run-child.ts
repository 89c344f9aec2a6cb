// The worker process of `ablate --jobs N` (engine/run/run-processes.ts): the model plug-ins are plugged
// in here, where models are composed, then runs are taken from the parent over IPC.
import { serveRunJobs } from '../engine/run/run-processes';
import { useBuiltinPlugins } from './composition';
import { OTEL_ENV } from './otel-env';

useBuiltinPlugins();
// The parent's --otel / --otel-file, through the environment: this process exports its runs' spans too.
if (process.env[OTEL_ENV.url] || process.env[OTEL_ENV.file]) {
  (await import('./otel')).startOtelFromEnv();
}
serveRunJobs();
