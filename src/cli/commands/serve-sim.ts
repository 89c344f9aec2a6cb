import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PROFILES } from '../../llm/latency-profiles';
import { formatFaults } from '../../sim/server/faults';
import { requestLogLine } from '../../sim/server/request-log';
import { startServeSim, type RecordedRequest } from '../../sim/server/serve-sim';
import { loadWorldFile } from '../../sim/sim-world-file';
import { UsageError, intFlag } from '../usage';

/** Help text of `evochamber serve-sim`. */
export const SERVE_SIM_HELP = `Usage: evochamber serve-sim [options]

Serve the simulated model as an OpenAI-compatible HTTP API, as vLLM serves a model
(/v1/chat/completions, /v1/completions and /v1/responses, plain and streamed; /v1/embeddings;
/v1/models; /metrics) with a real-time latency profile and optional faults.
It is a simulation: its answers speak about EvoChamber's mechanics, never about LLMs.

Options:
  --port N           port (default 8000; 0 picks a free one)
  --host ADDR        interface to bind (default 127.0.0.1)
  --profile NAME     latency profile: ${Object.keys(PROFILES).join(', ')} (default qwen3-8b-h100-vllm)
  --faults SPEC      e.g. error=0.1,429=0.05,hang=0.02,drop=0.02,truncate=0.1 (5xx, 429 with retry
                     headers, requests that never answer, connections cut mid-response, replies
                     that think until max_tokens and never answer); seeded
  --seed N           world, sampling, latency and fault seed (default 1)
  --world FILE       the simulator's parameters, global and per niche: a world file or a bundled
                     world's name (docs/calibration.md; a stand-in for "the real model" there)
  --time-scale X     run the latency model X times faster than real time (default 1)
  --rpm N, --tpm N   api profiles: requests / tokens per minute before 429s
  --scheduling-policy fcfs|priority  as vLLM's (default fcfs): under priority each request's body
                     field 'priority' orders the queue (lower first, ties first come, first served);
                     under fcfs a non-zero priority is a 400
  --model-id NAME    the model served (default sim); a request naming another gets 404 model_not_found
  --log-requests FILE  append one JSON line per request: path, x-evochamber-* headers and every body
                     field but the prompt and gold answers (to see the sampling fields a run sends)

Runs until SIGINT or SIGTERM.

A run answers like the in-process simulator only with the side channel (each task's gold answer
sent with its requests; loopback servers only). Without it every answer is a guess and accuracy
is near 0 (the run says so as it starts):
  evochamber run scenarios/quickstart.json --base-url http://127.0.0.1:8000/v1 --sim-side-channel
`;

/** `evochamber serve-sim`: prints one line with its URL once listening; resolves after a clean shutdown. */
export async function serveSimCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, profile: { type: 'string' }, faults: { type: 'string' },
      seed: { type: 'string' }, 'time-scale': { type: 'string' }, rpm: { type: 'string' }, tpm: { type: 'string' },
      'model-id': { type: 'string' }, 'scheduling-policy': { type: 'string' }, 'log-requests': { type: 'string' }, world: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(SERVE_SIM_HELP); return; }
  if (positionals.length > 0) throw new UsageError(`serve-sim takes no positional arguments (got "${positionals[0]}")`, SERVE_SIM_HELP);
  const profile = values.profile ?? 'qwen3-8b-h100-vllm';
  if (!PROFILES[profile]) throw new UsageError(`unknown profile "${profile}" (profiles: ${Object.keys(PROFILES).join(', ')})`, SERVE_SIM_HELP);
  const timeScale = values['time-scale'] === undefined ? 1 : Number(values['time-scale']);
  if (!(timeScale > 0)) throw new UsageError(`--time-scale takes a positive number, got "${values['time-scale']}"`, SERVE_SIM_HELP);
  const rpm = intFlag(values.rpm, '--rpm', 1);
  const tpm = intFlag(values.tpm, '--tpm', 1);
  const policy = values['scheduling-policy'] ?? 'fcfs';
  if (policy !== 'fcfs' && policy !== 'priority') throw new UsageError(`--scheduling-policy takes fcfs or priority, got "${policy}"`, SERVE_SIM_HELP);
  const logFile = values['log-requests'];
  if (logFile !== undefined) {
    try {
      appendFileSync(logFile, '');
    } catch (err) {
      throw new UsageError(`--log-requests: cannot write ${logFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, SERVE_SIM_HELP);
    }
  }
  const port = intFlag(values.port, '--port', 0) ?? 8000;
  if (port > 65535) throw new UsageError(`--port takes a port 0–65535, got "${values.port}"`, SERVE_SIM_HELP);
  const host = values.host ?? '127.0.0.1';
  const world = values.world === undefined ? undefined : loadWorldFile(values.world);
  let server;
  try {
    server = await startServeSim({
      port,
      host,
      profile,
      faults: values.faults,
      seed: intFlag(values.seed, '--seed', 0) ?? 1,
      timeScale,
      // Unset: the profile's limits (startServeSim reads each with ??).
      requestsPerMinute: rpm, tokensPerMinute: tpm,
      ...(values['model-id'] ? { modelId: values['model-id'] } : {}),
      ...(world ? { world } : {}),
      schedulingPolicy: policy,
      onRequest: logFile === undefined ? undefined : (r: RecordedRequest) => { const line = requestLogLine(r); if (line) appendFileSync(logFile, `${line}\n`); },
    });
  } catch (err) {
    const msg = (err as Error).message;
    if (/bad fault|fault rates/.test(msg)) throw new UsageError(`--faults: ${msg}`, SERVE_SIM_HELP);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port: port ${port} on ${host} is in use (pick another with --port, or --port 0 for a free one)`, SERVE_SIM_HELP);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') throw new UsageError(`cannot listen on ${host}:${port} (${code}); check --host and --port`, SERVE_SIM_HELP);
    throw err;
  }
  const scale = timeScale === 1 ? '' : `, time ×${timeScale}`;
  process.stdout.write(`serve-sim listening on ${server.url} (profile ${server.profile.name}, faults ${formatFaults(server.faults)}, seed ${intFlag(values.seed, '--seed', 0) ?? 1}${scale})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
