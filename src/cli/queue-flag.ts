import { parseRedisTarget, RedisUnreachableError, type RedisTarget } from '../engine/sweep/redis-target';
import { UsageError } from './usage';

/** Parse `--queue` (required where called): a missing or malformed URL is a command-line mistake, said without its password. */
export function queueFlag(value: string | undefined, help: string): RedisTarget {
  if (value === undefined) throw new UsageError('--queue redis://host:port is required', help);
  try {
    return parseRedisTarget(value);
  } catch (err) {
    if (err instanceof RedisUnreachableError) throw new UsageError(err.message, help);
    throw err;
  }
}
