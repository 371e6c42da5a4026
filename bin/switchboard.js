#!/usr/bin/env node
// The `switchboard` command. It runs the compiled CLI in dist/bundle/ (built by `npm run build`, which
// `npm ci`, `npm install` and `npm pack` run through `prepare`). Under the "switchboard-source"
// export condition (`node --conditions=switchboard-source bin/switchboard.js …`, as the tests and
// the npm scripts run it) it runs the TypeScript sources through tsx instead, so no build is needed.
import { existsSync } from 'node:fs';

// A reader that stops early (`switchboard run … | head -1`) closes the pipe: the command goes on
// quietly without that output (no unhandled EPIPE with a stack trace) and ends with its own exit
// code. It does not end there: a run still going would be left stored as 'running', with nobody
// running it, and its exit code would be whatever it was when the reader left.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

let main;
if (import.meta.resolve('switchboard').endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  const compiled = new URL('../dist/bundle/cli.js', import.meta.url);
  if (!existsSync(compiled)) {
    process.stderr.write('switchboard: the compiled CLI (dist/) is missing; run `npm run build`, or run the sources with `node --conditions=switchboard-source`\n');
    process.exit(2);
  }
  ({ main } = await import(compiled.href));
}
process.exitCode = await main(process.argv.slice(2));
