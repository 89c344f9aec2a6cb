// `--otel URL` and `--otel-file PATH` on run, ablate and resume: register the OpenTelemetry SDK (the
// official packages) and turn the engine's spans on (core/tracing). Loaded only when a flag is given, so
// a run without them loads no SDK. Worker processes of `ablate --jobs` inherit the settings through the
// environment (EVOCHAMBER_OTEL_URL, EVOCHAMBER_OTEL_FILE) and start the same exporters.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { enableTracing } from '../core/tracing/tracing';
import { SEMCONV_VERSION } from '../core/tracing/semconv';

/** Where the spans go. */
export interface OtelTargets {
  /** An OTLP/HTTP receiver: its base URL (`/v1/traces` is added when the path is empty) or the full traces URL. */
  readonly url?: string;
  /** A file of OTLP JSON lines: one ExportTraceServiceRequest per line, appended. */
  readonly file?: string;
}

import { OTEL_ENV } from './otel-env';

/** The traces URL of `--otel URL`: a base URL gets OTLP/HTTP's `/v1/traces`. Throws for a URL that is not http(s). */
export function tracesUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`--otel: "${url}" is not a URL (an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`--otel: "${url}" is not http(s) (OTLP over HTTP)`);
  if (u.pathname === '' || u.pathname === '/') u.pathname = '/v1/traces';
  return u.toString();
}

/** A span exporter that appends each batch to a file as one line of OTLP JSON (the OTLP file exporter's format). */
class JsonLinesExporter implements SpanExporter {
  constructor(private readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
  }

  export(spans: ReadableSpan[], done: (r: { code: number; error?: Error }) => void): void {
    try {
      const body = JsonTraceSerializer.serializeRequest(spans);
      if (body) appendFileSync(this.file, `${Buffer.from(body).toString('utf8')}\n`);
      done({ code: 0 });
    } catch (err) {
      done({ code: 1, error: err as Error });
    }
  }

  async shutdown(): Promise<void> {}
}

let started = false;

/** The package's version (the resource's service.version), from its package.json two folders up, as main.ts reads it. */
const version = (): string => (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Register the SDK with the given exporters and turn the spans on; the CLI's end (main.ts) flushes
 * and shuts it down. Also sets the environment a worker process starts its own from. Once per process.
 */
export function startOtel(t: OtelTargets): void {
  if (started || (!t.url && !t.file)) return;
  started = true;
  const processors = [
    ...(t.url ? [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl(t.url) }), scheduledDelayMillis: 1000, maxQueueSize: 65536, maxExportBatchSize: 2048 })] : []),
    ...(t.file ? [new BatchSpanProcessor({ exporter: new JsonLinesExporter(path.resolve(t.file)), scheduledDelayMillis: 1000, maxQueueSize: 65536, maxExportBatchSize: 2048 })] : []),
  ];
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'evochamber', 'service.version': version(), 'evochamber.semconv': SEMCONV_VERSION }),
    spanProcessors: processors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  enableTracing(() => provider.forceFlush(), () => provider.shutdown());
  if (t.url) process.env[OTEL_ENV.url] = t.url;
  if (t.file) process.env[OTEL_ENV.file] = path.resolve(t.file);
}

/** A worker process: start the exporters its parent asked for (through the environment), if any. */
export function startOtelFromEnv(): void {
  const url = process.env[OTEL_ENV.url];
  const file = process.env[OTEL_ENV.file];
  startOtel({ ...(url ? { url } : {}), ...(file ? { file } : {}) });
}
