// Run after any `npm install`: @chonkiejs/core (a dev dependency, benchmark peer) lists optional
// platform packages of @kreuzberg/tree-sitter-language-pack that the registry here does not serve.
// npm then leaves them out of package-lock.json and `npm ci` refuses the lock ("Missing ... from
// lock file"). Entries pinned to their os/cpu make `npm ci` accept the lock and skip them on Linux.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const parent = lock.packages['node_modules/@kreuzberg/tree-sitter-language-pack'];
let added = 0;
for (const name of Object.keys(parent?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [os, cpu] = name.split('pack-')[1].split('-');
  lock.packages[key] = { version: parent.version, dev: true, optional: true, os: [os], cpu: [cpu] };
  added++;
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock: ${added} optional placeholder(s) added`);
