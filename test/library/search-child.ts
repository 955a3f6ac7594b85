// Child process for the concurrency tests: searches a library in a loop until its stdin closes,
// then prints `{ searches, hits, errors }` (every search is counted; an error is a failure).
import { Library } from '../../src/library/library.js';

const [libDir, ...queries] = process.argv.slice(2);
const library = await Library.open(libDir!);
let stop = false;
let searches = 0;
let hits = 0;
const errors: string[] = [];
process.stdin.on('data', () => undefined);
process.stdin.on('end', () => (stop = true));
while (!stop) {
  for (const query of queries) {
    try {
      hits += (await library.searchText(query, { k: 10 })).length;
      searches++;
    } catch (error) {
      errors.push(`${(error as { code?: string }).code ?? ''} ${(error as Error).message}`);
    }
  }
  await new Promise((r) => setTimeout(r, 5));
}
await library.close();
process.stdout.write(`${JSON.stringify({ searches, hits, errors: errors.slice(0, 10), errorCount: errors.length })}\n`);
