import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The one rule of every output directory (`run --out`, `ablate --out`, `export --out`, `report --out`,
 * `calibrate --out`): evochamber writes only into a directory that is missing, empty, or that it
 * wrote itself, and there it replaces only the files it wrote. A directory is evochamber's when it
 * holds this manifest (`.evochamber-files.json`, the top-level names evochamber wrote there), or,
 * for directories written before the manifest, when `ownedBefore` recognises it (a run's run.json).
 * Anything else, and any file in the way that evochamber did not write, is refused in one line
 * before anything is written, and left untouched.
 */
export const OUTPUT_MANIFEST = '.evochamber-files.json';

/** An output directory evochamber may not write into: a file, or a directory of someone else's files. */
export class OutputDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputDirError';
  }
}

/** What `claimOutputDir` needs to know. */
export interface OutputClaim {
  /** How the user named the directory in messages, e.g. `--out` or `--report-dir`. */
  readonly flag: string;
  /** The top-level names (files or folders) the command writes into the directory. */
  readonly names: readonly string[];
  /** For a directory without a manifest: true when evochamber wrote it before manifests existed. */
  readonly ownedBefore?: (dir: string) => boolean;
  /**
   * The directory is the user's, and the command writes named files beside theirs (calibrate's
   * `--out WORLD.json`): only a file in the way that evochamber did not write is refused.
   */
  readonly shared?: boolean;
}

interface Manifest { readonly writtenBy: 'evochamber'; readonly files: string[] }

/** The top-level names evochamber wrote into `dir`; null when it holds no manifest (or an unreadable one). */
export function ownedNames(dir: string): string[] | null {
  try {
    const m = JSON.parse(readFileSync(path.join(dir, OUTPUT_MANIFEST), 'utf8')) as Partial<Manifest>;
    return m.writtenBy === 'evochamber' && Array.isArray(m.files) ? m.files.filter((f): f is string => typeof f === 'string') : null;
  } catch {
    return null;
  }
}

/**
 * Refuse `dir` (one line, nothing written) unless evochamber may write `claim.names` there; throws
 * OutputDirError. Writes nothing: call `recordOutputDir` once the command is about to write.
 */
export function checkOutputDir(dir: string, claim: OutputClaim): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return; // missing: it is created
  }
  if (!isDir) throw new OutputDirError(`${claim.flag} ${dir}: is a file, not a directory; pick a new or empty directory`);
  const entries = readdirSync(dir).filter((e) => e !== OUTPUT_MANIFEST);
  if (entries.length === 0) return;
  const owned = ownedNames(dir) ?? (claim.ownedBefore?.(dir) ? entries : claim.shared ? [] : null);
  if (owned === null) {
    throw new OutputDirError(`${claim.flag} ${dir}: exists, is not empty (${shown(entries)}) and was not written by evochamber; pick a new or empty directory (--force replaces only files evochamber wrote)`);
  }
  const inTheWay = claim.names.filter((n) => entries.includes(n) && !owned.includes(n));
  if (inTheWay.length > 0) {
    throw new OutputDirError(`${claim.flag} ${dir}: holds ${shown(inTheWay)}, which evochamber did not write; move it away or pick another directory`);
  }
}

/** Check `dir` (see checkOutputDir), create it, and add `claim.names` to its manifest. */
export function claimOutputDir(dir: string, claim: OutputClaim): void {
  checkOutputDir(dir, claim);
  recordOutputDir(dir, claim.names);
}

/** Add `names` to the manifest of `dir` (creating both): from now on they are evochamber's to replace. */
export function recordOutputDir(dir: string, names: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  const before = ownedNames(dir) ?? readdirSync(dir).filter((e) => e !== OUTPUT_MANIFEST && names.includes(e));
  const files = [...new Set([...before, ...names])].sort();
  const m: Manifest = { writtenBy: 'evochamber', files };
  writeFileSync(path.join(dir, OUTPUT_MANIFEST), `${JSON.stringify(m)}\n`);
}

/** `--force`: remove what evochamber wrote in `dir` (its manifest's names), never anything else. */
export function removeOwnedOutputs(dir: string): void {
  for (const name of ownedNames(dir) ?? []) rmSync(path.join(dir, name), { recursive: true, force: true });
  if (existsSync(path.join(dir, OUTPUT_MANIFEST))) rmSync(path.join(dir, OUTPUT_MANIFEST));
}

function shown(names: readonly string[]): string {
  return names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
}
