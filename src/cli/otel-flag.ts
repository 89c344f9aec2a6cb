/** parseArgs option spec of `--otel` and `--otel-file`. */
export const OTEL_FLAG_OPTIONS = { otel: { type: 'string' }, 'otel-file': { type: 'string' } } as const;

/** Help lines of `--otel` and `--otel-file`. */
export const OTEL_FLAG_HELP = `  --otel URL        send OpenTelemetry traces over OTLP/HTTP (e.g. http://127.0.0.1:4318): a span
                    per run, task, stage and model call, GenAI semantic conventions (docs/tracing.md)
  --otel-file PATH  append the same traces to PATH as OTLP JSON lines (off by default, both)`;

let stop: (() => Promise<void>) | null = null;

/** Export the last spans and stop the SDK, when a flag started it (main.ts, as a command ends); nothing otherwise. */
export async function stopOtel(): Promise<void> {
  const s = stop;
  stop = null;
  if (s) await s();
}

/** Start tracing when `--otel` or `--otel-file` is given (the SDK is loaded only then). */
export async function otelFlags(values: { readonly otel?: string; readonly 'otel-file'?: string }): Promise<void> {
  if (values.otel === undefined && values['otel-file'] === undefined) return;
  const { startOtel, tracesUrl } = await import('./otel');
  const { shutdownTracing } = await import('../core/tracing/tracing');
  stop = shutdownTracing;
  if (values.otel !== undefined) tracesUrl(values.otel);
  // An unset flag exports nowhere (startOtel reads each by truthiness).
  startOtel({ url: values.otel, file: values['otel-file'] });
}
