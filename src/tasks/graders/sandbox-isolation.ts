/**
 * How the code-sandbox workers are launched: find the real Python interpreter, probe bubblewrap
 * once, and build the command line. Falls back to the strongest isolation the host allows and
 * says loudly (once per process) what is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which sandbox is in use: bubblewrap around each worker, or the weaker fallback. */
export type IsolationMode = 'bwrap' | 'fallback';

/** What isolation the workers actually got on this host. */
export interface SandboxIsolation {
  readonly mode: IsolationMode;
  /** True when workers run in their own network namespace (no network, not even loopback peers). */
  readonly networkIsolated: boolean;
  /** True when workers see only /usr and the Python install (bubblewrap mount namespace). */
  readonly filesystemIsolated: boolean;
  /** One-line summary for logs and benchmarks. */
  readonly summary: string;
}

/** Everything needed to spawn one worker. */
export interface WorkerLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly isolation: SandboxIsolation;
}

/**
 * Where the Python sandbox ships: sandbox/ next to this file, as plain text. Its three modules
 * (policy, worker, harness) import one another, so the directory is bound and copied as a whole.
 */
const SANDBOX_DIR = fileURLToPath(new URL('./sandbox', import.meta.url));
const WORKER_SCRIPT = `${SANDBOX_DIR}/sandbox_worker.py`;
const BOUND_DIR = '/opt/evochamber';
const SANDBOX_SCRIPT = `${BOUND_DIR}/sandbox_worker.py`;
/** -s: no user site-packages; -B: no .pyc writes. -E is left out so PYTHONHASHSEED applies. */
const PY_FLAGS = ['-s', '-B'];
const BASE_ENV = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONHASHSEED: '0' };
const PER_JOB = 'per job: fork + setsid, fresh temp dir, rlimits (AS, CPU, FSIZE, NOFILE, NPROC), audit hook';

let warned = false;

interface PythonInstall {
  readonly executable: string;
  readonly prefixes: readonly string[];
}

/** Real interpreter path and install prefixes (python3 may be a pyenv shim). Throws when missing. */
export function resolvePython(python = 'python3'): PythonInstall {
  const probe = 'import json,sys;print(json.dumps([sys.executable,sys.prefix,sys.base_prefix,sys.exec_prefix,list(sys.version_info[:2])]))';
  let info: [string, string, string, string, [number, number]];
  try {
    const out = execFileSync(python, ['-c', probe], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'] });
    info = JSON.parse(out.trim().split('\n').pop() ?? '');
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new Error(`code niches need python3 on PATH: running \`${python}\` failed (${reason})`);
  }
  const [exe, prefix, basePrefix, execPrefix, [major, minor]] = info;
  // Audit hooks (the in-process guard) arrived in Python 3.8.
  if (major < 3 || (major === 3 && minor < 8)) {
    throw new Error(`code niches need python3 on PATH: found Python ${major}.${minor} at ${exe}, need >= 3.8`);
  }
  const executable = realpathSync(exe);
  const prefixes = new Set([prefix, basePrefix, execPrefix, dirname(dirname(executable))].filter((p) => p !== ''));
  return { executable, prefixes: [...prefixes].map((p) => (existsSync(p) ? realpathSync(p) : p)) };
}

/** Read-only view of the host for bubblewrap: /usr, the /lib-style links, the Python install. */
function bwrapArgs(py: PythonInstall): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  const outsideUsr = py.prefixes.filter((p) => p !== '/usr' && !p.startsWith('/usr/')).sort();
  // Bind parents before children, and skip prefixes already inside another bound prefix.
  const binds = outsideUsr.filter((p, k) => !outsideUsr.slice(0, k).some((q) => p.startsWith(`${q}/`)));
  for (const p of binds) args.push('--ro-bind', p, p);
  args.push('--ro-bind', SANDBOX_DIR, BOUND_DIR, '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev');
  args.push('--clearenv', '--chdir', '/tmp', '--setenv', 'HOME', '/tmp');
  for (const [k, v] of Object.entries(BASE_ENV)) args.push('--setenv', k, v);
  return args;
}

/** Run a probe command; null on success, else a one-line reason. */
function probe(command: string, args: readonly string[]): string | null {
  const res = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000, env: { ...BASE_ENV, HOME: tmpdir() } });
  if (res.error) return res.error.message.split('\n')[0] ?? 'failed';
  if (res.status === 0 && res.stdout.trim() === 'ok') return null;
  return (res.stderr.trim().split('\n').pop() ?? '') || `exit status ${res.status}`;
}

/** Prefix that puts the fallback worker in its own network (and pid) namespace, if the host allows. */
function unsharePrefix(py: PythonInstall): string[] | null {
  const base = ['--net', '--pid', '--fork', '--kill-child'];
  for (const variant of [base, ['--map-root-user', ...base]]) {
    if (probe('unshare', [...variant, py.executable, ...PY_FLAGS, '-c', 'print("ok")']) === null) return variant;
  }
  return null;
}

/** The one line shown when candidate code would run without bubblewrap and nobody opted in. */
export function refusal(problem: string): string {
  return `refusing to run candidate code without bubblewrap (${problem}): install it (\`apt-get install bubblewrap\`), or set "grading": { "allowUnsandboxed": true } in the scenario to accept weaker isolation`;
}

/**
 * Decide how to launch workers: bubblewrap when `bwrap … true` works, else the fallback.
 * `isolation: 'fallback'` skips bubblewrap (used by tests of the fallback path). Without bubblewrap,
 * throws the `refusal` line unless `allowUnsandboxed` is set.
 */
export function planWorkerLaunch(opts: { python?: string; isolation?: 'auto' | 'fallback'; allowUnsandboxed?: boolean } = {}): WorkerLaunch {
  const py = resolvePython(opts.python);
  let bwrapProblem = 'disabled by the isolation option';
  if (opts.isolation !== 'fallback') {
    const args = bwrapArgs(py);
    bwrapProblem = probe('bwrap', [...args, '--', py.executable, ...PY_FLAGS, '-c', 'print("ok")']) ?? '';
    if (bwrapProblem === '') {
      return {
        command: 'bwrap',
        args: [...args, '--', py.executable, ...PY_FLAGS, SANDBOX_SCRIPT],
        env: { ...BASE_ENV, HOME: '/tmp' },
        isolation: {
          mode: 'bwrap',
          networkIsolated: true,
          filesystemIsolated: true,
          summary: `bubblewrap (no network, read-only /usr + python install only, private /tmp, pid namespace); ${PER_JOB}`,
        },
      };
    }
  }
  if (opts.allowUnsandboxed !== true) throw new Error(refusal(bwrapProblem));
  const unshare = unsharePrefix(py);
  const worker = [py.executable, ...PY_FLAGS, WORKER_SCRIPT];
  const isolation: SandboxIsolation = {
    mode: 'fallback',
    networkIsolated: unshare !== null,
    filesystemIsolated: false,
    summary: `fallback without bubblewrap (${bwrapProblem}): scrubbed env, ${unshare ? 'own network + pid namespace (unshare)' : 'NO network isolation'}; ${PER_JOB}, privilege drop to nobody when root`,
  };
  if (!warned) {
    warned = true;
    const net = unshare ? '' : '; NETWORK: none (no usable `unshare -n`), only the audit hook stops sockets';
    process.stderr.write(
      `[evochamber] WARNING: code sandbox runs WITHOUT bubblewrap (${bwrapProblem}). Missing isolation: FILESYSTEM (candidates can read whatever their uid can; only a Python audit hook guards)${net}. Install bubblewrap for real isolation.\n`,
    );
  }
  return {
    command: unshare ? 'unshare' : py.executable,
    args: unshare ? [...unshare, ...worker] : worker.slice(1),
    env: { ...BASE_ENV, HOME: tmpdir() },
    isolation,
  };
}
