// `evochamber --help` must start fast: the CLI imports a command's module only when that command
// runs. A resolve hook logs every module the process loads; the figures are in
// test/bench/cli-startup.bench.ts (tests assert what loads, never how long it takes).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-lazy-'));
const hooks = path.join(dir, 'log-hooks.mjs');
writeFileSync(hooks, `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.EVO_LOAD_LOG, r.url + '\\n');
  return r;
}
`);
const register = path.join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

/** The modules (file URLs, relative to the repo; node: builtins left out) that `evochamber <args>` loads. */
function loaded(args: string[]): string[] {
  const log = path.join(dir, `${args.join('_').replace(/\W/g, '')}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', register, 'src/cli/main.ts', ...args], {
    encoding: 'utf8', timeout: 60_000, env: { ...process.env, EVO_LOAD_LOG: log },
  });
  expect(r.status, r.stderr).toBe(0);
  const root = pathToFileURL(process.cwd()).href;
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith(root)).map((u) => u.slice(root.length + 1)))];
}

describe('evochamber loads each command lazily', () => {
  it('--help loads the CLI entry and nothing of the engine, mathjs or vega', () => {
    const mods = loaded(['--help']);
    expect(mods).toContain('src/cli/main.ts');
    expect(mods.filter((m) => m.startsWith('src/') && !m.startsWith('src/cli/'))).toEqual([]);
    expect(mods.filter((m) => m.includes('/commands/'))).toEqual([]);
    expect(mods.filter((m) => m.startsWith('node_modules/') && !m.startsWith('node_modules/tsx/'))).toEqual([]);
  });

  it('--version prints the package\'s version and loads no command', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(r.stdout).toBe(`evochamber ${version} (node ${process.versions.node})\n`);
    expect(loaded(['--version']).filter((m) => m.startsWith('src/') && m !== 'src/cli/main.ts' && !m.startsWith('src/cli/exit-codes') && !m.startsWith('src/cli/usage'))).toEqual([]);
  });

  it('a command loads its own module (and what it needs) when it runs', () => {
    const mods = loaded(['inspect', '--help']);
    expect(mods).toContain('src/cli/commands/inspect.ts');
    expect(mods.filter((m) => m.includes('/commands/') && !m.endsWith('/inspect.ts'))).toEqual([]);
  });
});
