// Child process for the search pool's shutdown test: opens a library, searches through a pool of
// two worker threads, closes the pool and the library, and then must exit by itself (no
// process.exit): a thread left running would keep it alive.
import { Library } from '../../src/library/library.js';
import { SearchPool } from '../../src/library/search-pool.js';

const [libDir, ...queries] = process.argv.slice(2);
const library = await Library.open(libDir!);
const pool = await SearchPool.for(library, 2);
const size = pool.size;
const hits: number[] = [];
for (const query of queries) hits.push((await pool.search(query, { k: 5 })).hits.length);
await pool.close();
await library.close();
process.stdout.write(`${JSON.stringify({ size, hits })}\n`);
