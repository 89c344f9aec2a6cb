import { redactRedisUrl } from './queue-names';

// Kept apart from redis-connection.ts so the CLI can check --queue without loading ioredis.

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
