import { parentPort, workerData } from 'node:worker_threads';
import { loadEngine, type WasmModule } from './engine.js';
import { analyseClaimed, type PageClaimTask } from './page-pool.js';

/** Entry of a page worker (see page-pool.ts): answers page tasks. */
const PAGE_WORKER_MARK = 'groundwork-pdf-pages';

const data = workerData as { mark?: unknown; pdfium?: WasmModule } | undefined;
if (parentPort && data?.mark === PAGE_WORKER_MARK) {
  const port = parentPort;
  // PDFium is instantiated from the parent's compiled module at start-up, not when the first task
  // is waiting; a failure surfaces in that task, whose pages the parent then analyses itself.
  loadEngine(data.pdfium).catch(() => undefined);
  port.on('message', (task: PageClaimTask) => {
    void analyseClaimed(task).then((result) => port.postMessage(result));
  });
}
