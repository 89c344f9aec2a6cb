import { Redis } from 'ioredis';
import { redactRedisUrl } from './queue-names';

/** A Redis to reach: the URL as given (may hold a password: never print it) and its printable form. */
export interface RedisTarget {
  readonly url: string;
  /** The URL with any password replaced by `***`: the only form that is printed or stored. */
  readonly shown: string;
}

/** A Redis that could not be reached, or a malformed `--queue` URL; the message is one line, without secrets. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
}

/** Check a `--queue` URL: `redis://[:password@]host:port[/db]` or `rediss://…` (TLS). */
export function parseRedisTarget(url: string): RedisTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RedisUnreachableError(`--queue takes a URL like redis://host:6379, got "${redactRedisUrl(url)}"`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new RedisUnreachableError(`--queue takes a redis:// or rediss:// URL, got "${redactRedisUrl(url)}"`);
  }
  if (!u.hostname) throw new RedisUnreachableError(`--queue URL names no host: "${redactRedisUrl(url)}"`);
  return { url, shown: redactRedisUrl(url) };
}

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
