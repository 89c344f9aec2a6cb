/**
 * How long a closing watch server waits for its pages to take the end of the run (watch-server.ts),
 * and so how long `run --watch` waits for its watch process to go. Its own file: the run command
 * reads it without loading the server and its charts.
 */
export const END_GRACE_MS = 5_000;
