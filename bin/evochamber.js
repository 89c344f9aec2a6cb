#!/usr/bin/env node
// The evochamber command: runs the compiled dist/ (`npm run build`; `npm install` in a clone builds it).
// Working on the sources? `npm run evochamber -- <args>` runs src/ through tsx, no build needed.
// The build's bundle (dist/bundle/, one file to compile) starts faster than dist/cli/'s module tree.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/main.js', import.meta.url);
const entry = existsSync(bundle) ? bundle : new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('evochamber: dist/ is not built: run "npm run build" in the package (npm install does it)\n');
  process.exit(1);
}
const { runCli } = await import(entry.href);
await runCli(process.argv.slice(2));
