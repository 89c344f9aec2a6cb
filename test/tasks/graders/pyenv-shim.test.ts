// A pyenv shim is bash running a dozen processes; resolvePython reads pyenv's version files itself
// instead, and runs the shim only where pyenv's rules go beyond the common case.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pyenvTarget, resolvePython } from '../../../src/tasks/graders/sandbox-isolation';

const root = mkdtempSync(path.join(tmpdir(), 'evo-pyenv-'));
const shims = path.join(root, 'shims');
const project = path.join(root, 'project', 'sub');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** pyenv's shim, as `pyenv rehash` writes it (its libexec/pyenv is missing here: running it fails). */
const SHIM = `#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="\${0##*/}"

export PYENV_ROOT="${root}"
SHIM_PATH=\${0%/*}
if [[ $SHIM_PATH != "${root}/shims" ]]; then
  export _PYENV_SHIM_PATH="$SHIM_PATH"
fi
exec "${root}/libexec/pyenv" exec "$program" "$@"
`;

function executable(file: string, text = '#!/bin/sh\nexit 1\n'): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

executable(path.join(shims, 'python3'), SHIM);
executable(path.join(root, 'versions', '9.1.0', 'bin', 'python3'));
executable(path.join(root, 'versions', '9.2.0', 'bin', 'python3'));
mkdirSync(path.join(root, 'versions', '9.3.0', 'bin'), { recursive: true }); // installed, without python3
executable(path.join(root, 'plain', 'python3'));
writeFileSync(path.join(root, 'version'), '9.1.0\n');
mkdirSync(project, { recursive: true });

const env = (extra: Record<string, string> = {}) => ({ PATH: `${shims}:/usr/bin:/bin`, ...extra });
const exe = (v: string) => path.join(root, 'versions', v, 'bin', 'python3');

describe('pyenvTarget', () => {
  it('follows PYENV_VERSION, then the nearest .python-version, then the global version file', () => {
    expect(pyenvTarget('python3', env(), project)).toBe(exe('9.1.0'));
    expect(pyenvTarget('python3', env({ PYENV_VERSION: '9.2.0' }), project)).toBe(exe('9.2.0'));
    writeFileSync(path.join(root, 'project', '.python-version'), '# pinned\n\n9.2.0 trailing words\n');
    try {
      expect(pyenvTarget('python3', env(), project)).toBe(exe('9.2.0'));
      expect(pyenvTarget('python3', env({ PYENV_VERSION: '9.1.0' }), project)).toBe(exe('9.1.0'));
    } finally {
      rmSync(path.join(root, 'project', '.python-version'));
    }
    expect(pyenvTarget(path.join(shims, 'python3'), {}, project)).toBe(exe('9.1.0'));
  });

  it('takes the first of several versions that has the command', () => {
    expect(pyenvTarget('python3', env({ PYENV_VERSION: '9.3.0:9.2.0:9.1.0' }), project)).toBe(exe('9.2.0'));
  });

  it('leaves to the shim what pyenv resolves further: system, prefixes, versions not installed, hooks, other commands', () => {
    for (const v of ['system', '9.2', '9.4.0', '9.1.0:9.4.0', '../9.1.0']) expect(pyenvTarget('python3', env({ PYENV_VERSION: v }), project)).toBeNull();
    expect(pyenvTarget('python3', env({ PYENV_HOOK_PATH: root }), project)).toBeNull();
    expect(pyenvTarget('python3', env({ PATH: path.join(root, 'plain') }), project)).toBeNull();
    expect(pyenvTarget('python9', env(), project)).toBeNull();
  });
});

describe('resolvePython through a pyenv shim', () => {
  it('runs the version\'s interpreter, not the shim', () => {
    // A version whose python3 is this host's: the shim would fail (no libexec/pyenv), the interpreter answers.
    const real = execFileSync('python3', ['-c', 'import sys;print(sys.executable)'], { encoding: 'utf8' }).trim();
    const version = path.join(root, 'versions', '9.5.0', 'bin');
    mkdirSync(version, { recursive: true });
    symlinkSync(real, path.join(version, 'python3'));
    const shim = path.join(root, 'other-shims', 'python3');
    executable(shim, SHIM);
    const before = process.env.PYENV_VERSION;
    process.env.PYENV_VERSION = '9.5.0';
    try {
      expect(resolvePython(shim).executable).toBe(execFileSync(real, ['-c', 'import os,sys;print(os.path.realpath(sys.executable))'], { encoding: 'utf8' }).trim());
    } finally {
      if (before === undefined) delete process.env.PYENV_VERSION;
      else process.env.PYENV_VERSION = before;
    }
  });
});
