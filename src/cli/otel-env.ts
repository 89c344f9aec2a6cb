/** The environment variables a worker process of `ablate --jobs` reads its parent's --otel / --otel-file from. */
export const OTEL_ENV = { url: 'EVOCHAMBER_OTEL_URL', file: 'EVOCHAMBER_OTEL_FILE' } as const;
