// The worker process of `ablate --jobs N` (engine/run/run-processes.ts): the model plug-ins are plugged
// in here, where models are composed, then runs are taken from the parent over IPC.
import { serveRunJobs } from '../engine/run/run-processes';
import { useBuiltinPlugins } from './composition';

useBuiltinPlugins();
serveRunJobs();
