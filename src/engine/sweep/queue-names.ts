import { customAlphabet } from 'nanoid';

/** The BullMQ queue every `evochamber worker` listens on; sweeps share it and are told apart by job id. */
export const SWEEP_QUEUE = 'evochamber-ablate';

/** Key prefix of everything EvoChamber keeps in Redis (BullMQ's own keys and the sweep records). */
export const SWEEP_PREFIX = 'evochamber';

const sweepSuffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 8);

/** A fresh sweep id: short, lower-case, safe in job ids, Redis keys and directory names. */
export function newSweepId(): string {
  return sweepSuffix();
}

/** The job id of one (variant, seed) run of a sweep. Deterministic, so enqueueing twice adds nothing. */
export function sweepJobId(sweepId: string, variant: string, seed: number): string {
  // BullMQ reserves ':' in custom ids (it separates key parts).
  return `${sweepId}.${variant}.s${seed}`;
}

/** The Redis key holding a sweep's record (its plan), read by `--attach`. */
export function sweepRecordKey(sweepId: string): string {
  return `${SWEEP_PREFIX}:sweep:${sweepId}`;
}

/** A worker's run directory for one job, under its runs root (same layout as a local ablate). */
export function sweepRunDirName(scenario: string, sweepId: string, variant: string, seed: number): string {
  return `ablate-${scenario}-${sweepId}/${variant}-s${seed}`;
}

/**
 * A Redis URL safe to print or store: any password (and user name) replaced by `***`.
 * Never print or persist the URL a user gave; print this.
 */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.username) u.username = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: keep only the scheme so nothing secret can leak.
    return url.replace(/\/\/.*$/, '//***');
  }
}
