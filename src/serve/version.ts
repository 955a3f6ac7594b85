import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version (package.json sits two levels above this module, in src/serve/ and dist/serve/ alike). */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
