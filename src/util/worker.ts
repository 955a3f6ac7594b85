import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` ('worker' -> worker.js) beside `callerUrl`. Built
 * code runs the .js file directly. From sources (tests, tsx) the worker must register tsx's loader
 * itself before importing the .ts entry: `--import` in a worker's execArgv does not apply to it.
 */
export function startWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const here = new URL(callerUrl);
  if (!here.pathname.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), options);
  const tsxDir = dirname(createRequire(here).resolve('tsx/package.json'));
  const api = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const entry = new URL(`./${name}.ts`, here).href;
  const boot = `const { register } = await import(${JSON.stringify(api)}); register(); await import(${JSON.stringify(entry)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
}
