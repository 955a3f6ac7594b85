import { parentPort, workerData } from 'node:worker_threads';
import { analyseRange, type PageRangeTask } from './page-range.js';

/** Entry of a page worker (see page-pool.ts): answers page-range tasks. */
const PAGE_WORKER_MARK = 'groundwork-pdf-pages';

if (parentPort && workerData === PAGE_WORKER_MARK) {
  const port = parentPort;
  port.on('message', (task: PageRangeTask) => {
    void analyseRange(task).then((result) => port.postMessage(result));
  });
}
