// Child process for the streamed-write kill test: begins a streamed write of `doc-big`, adds its
// blocks, says `staged`, and waits to be killed (it never commits).
import { openStore } from '../../src/store/registry.js';
import { contractWrite } from './contract.js';

const spec = JSON.parse(process.argv[2]!);
const store = await openStore(spec);
const { blocks, indexTexts: _i, ...head } = contractWrite('big', Array.from({ length: 400 }, (_, i) => `killed mid-write block ${i} of the heron river`));
const writer = await store.beginDocument(head);
for (let from = 0; from < blocks.length; from += 100) await writer.addBlocks(blocks.slice(from, from + 100));
process.stdout.write('staged\n');
setInterval(() => undefined, 1000);
