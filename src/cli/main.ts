#!/usr/bin/env node
import { readProcessStdin, type CliIO } from './io.js';
import { run } from './run.js';

const processIO: CliIO = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readStdin: readProcessStdin,
};

// A closed pipe (`groundwork chunk f | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2), processIO);
