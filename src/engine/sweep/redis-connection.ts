import { Redis } from 'ioredis';
import { RedisUnreachableError, type RedisTarget } from './redis-target';

/** How long connections keep reconnecting after losing Redis before giving up (ioredis would retry forever). */
export interface ReconnectPolicy {
  /** Reconnect attempts before giving up (default 20, about a minute). */
  readonly attempts?: number;
}

const CONNECT_TIMEOUT_MS = 5000;
const closing = new WeakSet<Redis>();

/** Close a connection from `openRedis` on purpose (no "lost Redis" line). */
export async function closeRedis(client: Redis): Promise<void> {
  closing.add(client);
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const text = e?.code ?? e?.message ?? String(err);
  return text.split('\n')[0]!;
}

/**
 * Connect once, without retries, and PING: one clear error when Redis is down, unreachable or
 * refuses the password, instead of ioredis' endless reconnect loop.
 */
export async function probeRedis(target: RedisTarget): Promise<void> {
  const client = new Redis(target.url, {
    lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let last: unknown;
  client.on('error', (err) => { last = err; });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw new RedisUnreachableError(`cannot reach Redis at ${target.shown} (${describe(last ?? err)})`);
  } finally {
    client.disconnect();
  }
}

/**
 * A long-lived connection for BullMQ: commands wait while it reconnects (BullMQ's workers need
 * `maxRetriesPerRequest: null`), but reconnecting stops after a bounded number of attempts; then
 * pending commands fail and `onGiveUp` is told once, with a line fit to print.
 */
export function openRedis(target: RedisTarget, onGiveUp: (line: string) => void, policy: ReconnectPolicy = {}): Redis {
  const attempts = policy.attempts ?? 20;
  let last: unknown;
  let gaveUp = false;
  const client = new Redis(target.url, {
    connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: null,
    retryStrategy: (times) => (times > attempts ? null : Math.min(times * 500, 3000)),
  });
  client.on('error', (err) => { last = err; });
  client.on('end', () => {
    if (gaveUp || closing.has(client)) return;
    gaveUp = true;
    onGiveUp(`lost Redis at ${target.shown} (${describe(last ?? 'connection closed')}); gave up after ${attempts} reconnect attempts`);
  });
  return client;
}
