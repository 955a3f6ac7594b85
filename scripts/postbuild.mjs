// Runs after `tsc -p tsconfig.build.json`. tsc writes files without the executable bit, but the
// `groundwork` bin must be runnable as dist/cli/main.js itself and through links to it (npx, npm
// link); so: set the bit, and fail the build loudly if the entry or its shebang is missing.
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

if (!existsSync(entry)) {
  console.error(`postbuild: ${entry} was not produced by tsc; check tsconfig.build.json and src/cli/main.ts`);
  process.exit(1);
}
if (!readFileSync(entry, 'utf8').startsWith('#!/usr/bin/env node\n')) {
  console.error(`postbuild: ${entry} does not start with '#!/usr/bin/env node'; keep it as the first line of src/cli/main.ts`);
  process.exit(1);
}
chmodSync(entry, statSync(entry).mode | 0o111);

// The inspector's static files (src/inspector/static/) are served from beside dist/inspector/plugin.js.
import { cpSync } from 'node:fs';
cpSync(fileURLToPath(new URL('../src/inspector/static', import.meta.url)), fileURLToPath(new URL('../dist/inspector/static', import.meta.url)), { recursive: true });
