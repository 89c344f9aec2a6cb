/**
 * How the code-sandbox workers are launched: find the real Python interpreter, probe bubblewrap
 * once, and build the command line. Falls back to the strongest isolation the host allows and
 * says loudly (once per process) what is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
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

/** One process to spawn. */
export interface ProcessLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** Everything needed to spawn one worker, and the trusted test checker that goes with it. */
export interface WorkerLaunch {
  /** The worker whose candidates run as `uid` (when the worker may change uid). */
  worker(uid: number): ProcessLaunch;
  /** The checker: runs the tests, outside the worker's sandbox (its own bubblewrap when there is one). */
  readonly checker: ProcessLaunch;
  readonly isolation: SandboxIsolation;
}

/**
 * Where the Python sandbox ships: sandbox/ next to this file, as plain text. Its modules (policy,
 * worker, checker) import one another, so the directory is bound read-only at /opt/evochamber in
 * bubblewrap, run in place by the fallback, and copied whole by the build.
 */
const SANDBOX_DIR = fileURLToPath(new URL('./sandbox', import.meta.url));
const BOUND_DIR = '/opt/evochamber';
const WORKER_SCRIPT = `${SANDBOX_DIR}/sandbox_worker.py`;
const SANDBOX_SCRIPT = `${BOUND_DIR}/sandbox_worker.py`;
const CHECKER_SCRIPT = `${SANDBOX_DIR}/sandbox_checker.py`;
/** The fallback's launcher: walls the worker in with Landlock, then execs it (sandbox/landlock_exec.py). */
const LANDLOCK_SCRIPT = `${SANDBOX_DIR}/landlock_exec.py`;
const SANDBOXED_CHECKER = `${BOUND_DIR}/sandbox_checker.py`;
/** Size of the candidates' RAM-backed /tmp. */
const TMP_BYTES = 64 * 1024 * 1024;
/** -s: no user site-packages; -B: no .pyc writes. -E is left out so PYTHONHASHSEED applies. */
const PY_FLAGS = ['-s', '-B'];
const BASE_ENV = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONHASHSEED: '0' };
const PER_JOB = 'per candidate: a fresh process forked ahead by the worker, setsid, its own temp dir, rlimits (AS, CPU, FSIZE, NOFILE, NPROC), audit hook (no native code from outside the Python install); tests run in a separate checker process';

let warned = false;

interface PythonInstall {
  readonly executable: string;
  readonly prefixes: readonly string[];
}

/** Interpreters resolved in this process, by the command asked for (a failure is not kept: it is asked again). */
const resolved = new Map<string, PythonInstall>();
/** Launch plans in this process, by their options: the bubblewrap (or unshare) probe runs once. */
const plans = new Map<string, WorkerLaunch>();

/**
 * Real interpreter path and install prefixes (python3 may be a pyenv shim, costly to go through).
 * Resolved once per process and command. Throws when missing.
 */
export function resolvePython(python = 'python3'): PythonInstall {
  const known = resolved.get(python);
  if (known) return known;
  const install = resolvePythonNow(python);
  resolved.set(python, install);
  return install;
}

function resolvePythonNow(python: string): PythonInstall {
  const probe = 'import json,sys;print(json.dumps([sys.executable,sys.prefix,sys.base_prefix,sys.exec_prefix,list(sys.version_info[:2])]))';
  let info: [string, string, string, string, [number, number]];
  try {
    // A guard against a hang, not a speed check: a pyenv shim on a machine at load 20+ took over 15 s.
    const out = execFileSync(pyenvTarget(python) ?? python, ['-c', probe], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The executable `command` names: itself when it holds a slash, else the first match on PATH. */
function onPath(command: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  if (command.includes('/')) return resolve(cwd, command);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(isAbsolute(dir) ? dir : resolve(cwd, dir), command);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here: the next directory
    }
  }
  return null;
}

/** The versions a pyenv version file names (first word of each line, comments and blank lines skipped). */
function pyenvVersionFile(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '').filter((v) => v !== '' && !v.startsWith('#'));
  } catch {
    return [];
  }
}

/**
 * The interpreter a pyenv shim would run, found without running it: the shim is bash running a
 * dozen more processes (0.7 s of CPU at load 13 against 0.13 s for Python itself, most of a 1-task
 * run's start). Follows pyenv's own rules for its common case: the version from PYENV_VERSION, else
 * the nearest .python-version from PYENV_DIR (then the current directory) up, else
 * $PYENV_ROOT/version; each version an installed directory; the first whose bin/ holds the command.
 * Null for anything else (not a pyenv shim, "system", a version prefix such as 3.11, a version not
 * installed, hooks of the user's own): then the shim itself runs, and says what is wrong.
 */
export function pyenvTarget(command: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | null {
  const shim = onPath(command, env, cwd);
  if (shim === null || env.PYENV_HOOK_PATH) return null;
  let text: string;
  try {
    if (statSync(shim).size > 4096) return null;
    text = readFileSync(shim, 'utf8');
  } catch {
    return null;
  }
  const root = /^export PYENV_ROOT="([^"$`\\]+)"$/m.exec(text)?.[1];
  if (!root || !text.includes(`exec "${root}/libexec/pyenv" exec "$program" "$@"`)) return null;
  const program = shim.slice(shim.lastIndexOf('/') + 1);
  let versions = (env.PYENV_VERSION ?? '').split(':').filter((v) => v !== '');
  if (versions.length === 0) {
    const dirs = [...new Set([env.PYENV_DIR ? resolve(cwd, env.PYENV_DIR) : cwd, cwd])];
    const local = dirs.flatMap((d) => {
      const up: string[] = [];
      for (let dir = d; ; dir = dirname(dir)) {
        up.push(join(dir, '.python-version'));
        if (dir === dirname(dir)) return up;
      }
    }).find((f) => { try { return statSync(f).isFile(); } catch { return false; } });
    versions = pyenvVersionFile(local ?? join(root, 'version'));
  }
  if (versions.length === 0) return null;
  for (const v of versions) {
    if (v === 'system' || v === '.' || v === '..' || v.includes('/')) return null;
    if (!existsSync(join(root, 'versions', v))) return null;
  }
  for (const v of versions) {
    const exe = join(root, 'versions', v, 'bin', program);
    try {
      accessSync(exe, constants.X_OK);
      return exe;
    } catch {
      // not in this version: the next one
    }
  }
  return null;
}

/**
 * Read-only view of the host for bubblewrap: /usr, the /lib-style links, the Python install, the
 * sandbox's modules at /opt/evochamber, a size-capped /tmp. `namespaces` says which namespaces to
 * create (see `SANDBOX_MODES`).
 */
function bwrapArgs(py: PythonInstall, namespaces: readonly string[]): string[] {
  // --as-pid-1: the worker (or checker) is pid 1 of its namespace, not a bwrap init above it. That
  // init tells the outer bwrap the exit status and the outer exits without waiting for it, leaving
  // a zombie to the host's init on every exit; with the command as pid 1 the outer bwrap reaps it.
  // The worker reaps the candidates' orphans itself (sandbox_worker.py, reap_orphans).
  const args = [...namespaces, '--as-pid-1', '--die-with-parent', '--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  const outsideUsr = py.prefixes.filter((p) => p !== '/usr' && !p.startsWith('/usr/')).sort();
  // Bind parents before children, and skip prefixes already inside another bound prefix.
  const binds = outsideUsr.filter((p, k) => !outsideUsr.slice(0, k).some((q) => p.startsWith(`${q}/`)));
  // Directories above a bound prefix (e.g. /root for a pyenv install) are made traversable, so a
  // candidate under its own uid can still reach the interpreter's standard library.
  const made = new Set<string>();
  for (const p of binds) {
    const parts = p.split('/').filter(Boolean);
    for (let k = 1; k < parts.length; k++) {
      const dir = `/${parts.slice(0, k).join('/')}`;
      if (made.has(dir) || ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64'].includes(dir)) continue;
      made.add(dir);
      args.push('--perms', '0755', '--dir', dir);
    }
    args.push('--ro-bind', p, p);
  }
  // /tmp is the worker's: each candidate writes only in the temp dir the worker made for it, so
  // nothing it leaves behind outlives its job for the next candidate to find.
  args.push('--ro-bind', SANDBOX_DIR, BOUND_DIR, '--perms', '0755', '--size', String(TMP_BYTES), '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev');
  args.push('--clearenv', '--chdir', '/tmp', '--setenv', 'HOME', '/tmp');
  for (const [k, v] of Object.entries(BASE_ENV)) args.push('--setenv', k, v);
  return args;
}

/**
 * How the worker's bubblewrap is set up, strongest first; the first that works on this host wins.
 * - `root`: Node runs as root. No user namespace: the worker is root in its own mount, pid, net,
 *   ipc and uts namespaces, remounts /tmp noexec, then keeps only CAP_SETUID/CAP_SETGID (to become
 *   the candidate's uid) and CAP_KILL (to end it), so each candidate runs under an unprivileged
 *   uid of its own (RLIMIT_NPROC binds; it cannot signal or trace the worker).
 * - `userns`: an unprivileged host. A user namespace as bubblewrap makes it; /tmp remounted
 *   noexec, then every capability dropped. Worker and candidate share the one mapped uid, which
 *   is not root on the host, so RLIMIT_NPROC binds.
 * - `plain`: the user namespace alone, when remounting is refused: /tmp stays executable.
 */
const REMOUNT = 'mount -o remount,bind,noexec,nosuid,nodev /tmp && exec setpriv --inh-caps=-all --ambient-caps=-all';
/** What the first step needs: remount /tmp (SYS_ADMIN), then shrink the bounding set (SETPCAP). */
const REMOUNT_CAPS = ['--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP'];
const SANDBOX_MODES = [
  {
    name: 'root',
    when: () => process.getuid?.() === 0,
    namespaces: ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_KILL', ...REMOUNT_CAPS],
    wrap: (cmd: string[]) => ['/bin/sh', '-c', `${REMOUNT} --bounding-set=-all,+setuid,+setgid,+kill "$@"`, 'sh', ...cmd],
    summary: 'own uid per worker for candidates (not root), noexec size-capped /tmp',
  },
  {
    name: 'userns',
    when: () => true,
    namespaces: ['--unshare-all', '--unshare-user', '--uid', '0', '--gid', '0', ...REMOUNT_CAPS],
    wrap: (cmd: string[]) => ['/bin/sh', '-c', `${REMOUNT} --bounding-set=-all "$@"`, 'sh', ...cmd],
    summary: 'user namespace (an unprivileged host uid), noexec size-capped /tmp',
  },
  {
    name: 'plain',
    when: () => true,
    namespaces: ['--unshare-all'],
    wrap: (cmd: string[]) => cmd,
    summary: 'user namespace, size-capped /tmp (NOT noexec: remount refused)',
  },
] as const;

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

/** The Landlock ABI the kernel offers the fallback worker (0: none), probed once per Python. */
function landlockAbi(py: PythonInstall): number {
  const res = spawnSync(py.executable, [...PY_FLAGS, LANDLOCK_SCRIPT, '--abi'], { encoding: 'utf8', timeout: 15_000, env: { ...BASE_ENV, HOME: tmpdir() } });
  const abi = Number.parseInt(res.stdout?.trim() ?? '', 10);
  return res.status === 0 && Number.isInteger(abi) && abi > 0 ? abi : 0;
}

/** The one line shown when candidate code would run without bubblewrap and nobody opted in. */
export function refusal(problem: string): string {
  return `refusing to run candidate code without bubblewrap (${problem}): install it (\`apt-get install bubblewrap\`), or set "grading": { "allowUnsandboxed": true } in the scenario to accept weaker isolation`;
}

/**
 * Decide how to launch workers: bubblewrap when `bwrap … true` works, else the fallback.
 * `isolation: 'fallback'` skips bubblewrap (used by tests of the fallback path). Without bubblewrap,
 * throws the `refusal` line unless `allowUnsandboxed` is set. The plan (and so the probe) is made once
 * per process and set of options; a refusal is not kept.
 */
export function planWorkerLaunch(opts: { python?: string; isolation?: 'auto' | 'fallback'; allowUnsandboxed?: boolean } = {}): WorkerLaunch {
  const key = JSON.stringify([opts.python ?? 'python3', opts.isolation ?? 'auto', opts.allowUnsandboxed === true]);
  const known = plans.get(key);
  if (known) return known;
  const plan = planNow(opts);
  plans.set(key, plan);
  return plan;
}

function planNow(opts: { python?: string; isolation?: 'auto' | 'fallback'; allowUnsandboxed?: boolean }): WorkerLaunch {
  const py = resolvePython(opts.python);
  let bwrapProblem = 'disabled by the isolation option';
  if (opts.isolation !== 'fallback') {
    bwrapProblem = '';
    const checkerArgs = bwrapArgs(py, ['--unshare-all']);
    for (const mode of SANDBOX_MODES) {
      if (!mode.when()) continue;
      const args = bwrapArgs(py, mode.namespaces);
      const problem = probe('bwrap', [...args, '--', ...mode.wrap([py.executable, ...PY_FLAGS, '-c', 'print("ok")'])]);
      if (problem !== null) {
        bwrapProblem ||= problem; // the strongest mode's reason is the one worth reading
        continue;
      }
      return {
        worker: (uid) => ({ command: 'bwrap', args: [...args, '--setenv', 'EVO_SANDBOX_UID', String(uid), '--', ...mode.wrap([py.executable, ...PY_FLAGS, SANDBOX_SCRIPT])], env: { ...BASE_ENV, HOME: '/tmp' } }),
        checker: { command: 'bwrap', args: [...checkerArgs, '--', py.executable, ...PY_FLAGS, SANDBOXED_CHECKER], env: { ...BASE_ENV, HOME: '/tmp' } },
        isolation: {
          mode: 'bwrap',
          networkIsolated: true,
          filesystemIsolated: true,
          summary: `bubblewrap (${mode.name}: no network, read-only /usr + python install only, pid namespace, ${mode.summary}); ${PER_JOB}`,
        },
      };
    }
  }
  if (opts.allowUnsandboxed !== true) throw new Error(refusal(bwrapProblem));
  const unshare = unsharePrefix(py);
  const landlock = landlockAbi(py);
  const worker = [py.executable, ...PY_FLAGS, ...(landlock > 0 ? [LANDLOCK_SCRIPT] : []), WORKER_SCRIPT];
  const files = landlock > 0 ? `Landlock ABI ${landlock}: files only in the worker's own directory, the Python install read-only` : 'NO Landlock: the audit hook is the only file-system guard';
  const isolation: SandboxIsolation = {
    mode: 'fallback',
    networkIsolated: unshare !== null,
    filesystemIsolated: false,
    summary: `fallback without bubblewrap (${bwrapProblem}): scrubbed env, ${unshare ? 'own network + pid namespace (unshare)' : 'NO network isolation'}, ${files}; ${PER_JOB}, privilege drop to a per-worker uid when root`,
  };
  if (!warned) {
    warned = true;
    const net = unshare ? '' : '; NETWORK: none (no usable `unshare -n`), only the audit hook stops sockets';
    process.stderr.write(
      `[evochamber] WARNING: code sandbox runs WITHOUT bubblewrap (${bwrapProblem}). Missing isolation: FILESYSTEM (${landlock > 0 ? 'Landlock walls files; ' : 'candidates can read whatever their uid can; only a Python audit hook guards; '}no mount namespace)${net}. Install bubblewrap for real isolation.\n`,
    );
  }
  const env = { ...BASE_ENV, HOME: tmpdir() };
  return {
    worker: (uid) => ({ command: unshare ? 'unshare' : py.executable, args: unshare ? [...unshare, ...worker] : worker.slice(1), env: { ...env, EVO_SANDBOX_UID: String(uid) } }),
    checker: { command: py.executable, args: [...PY_FLAGS, CHECKER_SCRIPT], env },
    isolation,
  };
}
