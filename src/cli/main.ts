#!/usr/bin/env node
import { readProcessStdin } from './io.js';
import type { TerminalIO } from './progress.js';
import { run } from './run.js';

const processIO: TerminalIO = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readStdin: readProcessStdin,
  terminal: {
    errIsTTY: process.stderr.isTTY === true,
    outIsTTY: process.stdout.isTTY === true,
    columns: () => process.stderr.columns || 80,
    color: !process.env.NO_COLOR,
  },
};

// A closed pipe (`groundwork chunk f | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2), processIO);
