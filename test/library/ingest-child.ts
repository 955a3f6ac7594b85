// Child process for the crash test: ingests a folder, printing one line per finished file.
import { Library } from '../../src/library/library.js';

const [libDir, folder] = process.argv.slice(2);
const lib = await Library.open(libDir!);
const report = await lib.addFiles(folder!, {
  workers: 1,
  onProgress: (p) => process.stdout.write(`done ${p.filesDone}\n`),
});
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await lib.close();
