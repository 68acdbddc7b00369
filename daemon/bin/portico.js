#!/usr/bin/env node
// The `portico` command: runs the compiled CLI (npm run build writes daemon/dist).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('portico: the daemon is not built (no daemon/dist). Run `npm run build` (or `npm ci`, which builds) in the Portico checkout.');
  process.exit(1);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
// The daemon and the console end their own work; flush output, then leave with their status.
process.exitCode = code;
