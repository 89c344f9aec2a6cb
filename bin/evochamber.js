#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx evochamber` and the `bin` entry work without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// An interrupted run may leave abandoned requests or timers behind: exit now, everything is on disk.
if (code === 4) process.exit(code);
process.exitCode = code;
