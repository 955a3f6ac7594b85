import { availableParallelism, loadavg } from 'node:os';
import { isMainThread, Worker } from 'node:worker_threads';
import { FontTable } from './chars.js';
import { compiledPdfium, loadEngine, openDocument } from './engine.js';
import type { PageLayout } from '../layout/page.js';
import { PageReader } from './page-range.js';
import { startWorker } from '../util/worker.js';

const PAGE_WORKER_MARK = 'groundwork-pdf-pages';

/**
 * Worker threads that analyse the pages of one document in parallel, each with its own PDFium
 * (PDFium is single-threaded). Only the main thread uses them: inside a library worker (already
 * one document per core) pages are analysed in place. Idle workers do not keep the process alive.
 */

const MAX_WORKERS = 3;
let pool: PagePool | undefined;

/**
 * Extra threads for the page analysis of a document of `pages` pages: $GROUNDWORK_PDF_WORKERS when
 * set; otherwise one per core beyond this thread that other processes leave idle (a saturated
 * machine gains nothing from more threads: measured slower). Never more than one per page beyond
 * the first, and 0 inside worker threads.
 */
export function pageWorkerCount(pages = Number.POSITIVE_INFINITY): number {
  if (!isMainThread) return 0;
  const forced = process.env.GROUNDWORK_PDF_WORKERS;
  const wanted =
    forced !== undefined && forced !== ''
      ? Math.min(8, Math.max(0, Number.parseInt(forced, 10) || 0))
      : Math.min(MAX_WORKERS, Math.max(0, availableParallelism() - 1 - Math.round(othersLoad())));
  return Math.max(0, Math.min(wanted, pages - 1));
}

/** 1-minute time constant of the kernel's load average, which the own-load average below follows. */
const LOAD_WINDOW_S = 60;
let ownLoad = 0;
let sampledAt = performance.now();
let sampledCpu = process.cpuUsage();

/**
 * The load average less this process's own share: the load average counts our threads too, and
 * after a minute of parsing they alone would look like a busy machine and switch the workers off.
 * Our share is the CPU this process used, averaged with the load average's time constant.
 */
function othersLoad(): number {
  const now = performance.now();
  const cpu = process.cpuUsage(sampledCpu);
  const seconds = (now - sampledAt) / 1000;
  if (seconds > 0) {
    const busy = (cpu.user + cpu.system) / 1e6 / seconds;
    const keep = Math.exp(-seconds / LOAD_WINDOW_S);
    ownLoad = ownLoad * keep + busy * (1 - keep);
  }
  sampledAt = now;
  sampledCpu = process.cpuUsage();
  return Math.max(0, (loadavg()[0] ?? 0) - ownLoad);
}

/** Where a page's warning belongs, so warnings come out in page order whichever thread read the page. */
export interface PageWarning {
  page: number;
  text: string;
}

/**
 * A page worker's share of a document: it opens its own copy and reads pages taken from the shared
 * split (see `takePage`), starting with range `range`.
 */
export interface PageClaimTask {
  id: number;
  bytes: Uint8Array;
  password?: string;
  ranges: BigInt64Array;
  range: number;
}

/** A worker's pages, with its font table: line font ids are the worker's own until mapped back. */
export type PageClaimResult =
  | { id: number; ok: true; pages: PageLayout[]; warnings: PageWarning[]; fonts: { names: string[]; flags: number[] } }
  | { id: number; ok: false; message: string };

/** The document's bytes and password, for page workers to open their own copy. */
export interface PageSource {
  bytes: Uint8Array;
  password?: string | undefined;
}

/**
 * Analyses every page of `doc` and returns them in page order. With `workers` > 0 the pages are
 * split into one contiguous range per thread, and a thread done with its own range takes pages from
 * the others' (see `takePage`): all finish together however unevenly the work is spread over the
 * pages. This thread never waits for a worker that read no page (one still starting, one busy with
 * another document); pages of a failed worker are read here.
 */
export async function analysePages(reader: PageReader, source: PageSource, workers: number, warnings: string[]): Promise<PageLayout[]> {
  const count = reader.document.pageCount;
  const fonts = new FontTable();
  if (workers === 0) {
    const pages: PageLayout[] = [];
    for (let i = 0; i < count; i++) pages.push(reader.read(i, fonts, warnings));
    return pages;
  }
  return analyseShared(reader, count, source, workers, fonts, warnings);
}

/** `analysePages` with page workers: this thread reads from `reader` while the workers read their copies. */
async function analyseShared(reader: PageReader, count: number, source: PageSource, workers: number, fonts: FontTable, warnings: string[]): Promise<PageLayout[]> {
  const ranges = splitPages(count, workers + 1);
  const bytes = new Uint8Array(new SharedArrayBuffer(source.bytes.length));
  bytes.set(source.bytes);
  const pool = pagePool(workers);
  const password = source.password !== undefined ? { password: source.password } : {};
  const shares = Array.from({ length: workers }, (_, k) => pool.run({ bytes, ranges, range: k + 1, ...password }, false));
  const pages = new Array<PageLayout | undefined>(count);
  const found: PageWarning[] = [];
  let read = readPages(reader, ranges, 0, fonts, pages, found);
  if (read < count) read += await collect(shares, pages, found, fonts, count - read);
  // Pages a failed worker had taken.
  for (let i = 0; i < count && read < count; i++) {
    if (pages[i]) continue;
    pages[i] = analyseWarned(reader, i, fonts, found);
    read++;
  }
  found.sort((a, b) => a.page - b.page);
  for (const warning of found) warnings.push(warning.text);
  return pages as PageLayout[];
}

/**
 * `count` pages split into `parts` contiguous ranges, each packed as (end << 32 | next) in a shared
 * array so that taking a page is one compare-and-swap.
 */
export function splitPages(count: number, parts: number): BigInt64Array {
  const ranges = new BigInt64Array(new SharedArrayBuffer(8 * parts));
  for (let k = 0; k < parts; k++) ranges[k] = pack(Math.round((k * count) / parts), Math.round(((k + 1) * count) / parts));
  return ranges;
}

/**
 * The next page for the thread owning range `own`, or -1 when every page is taken: its own range
 * front to back, then from the back of the range with most pages left. Each thread so reads runs
 * of consecutive pages, which mostly share fonts (each thread loads a font once per document).
 */
export function takePage(ranges: BigInt64Array, own: number): number {
  const front = take(ranges, own, true);
  if (front >= 0) return front;
  for (;;) {
    let fullest = -1;
    let most = 0;
    for (let k = 0; k < ranges.length; k++) {
      const range = Atomics.load(ranges, k);
      const left = endOf(range) - nextOf(range);
      if (left > most) ((most = left), (fullest = k));
    }
    if (fullest < 0) return -1;
    const back = take(ranges, fullest, false);
    if (back >= 0) return back;
  }
}

/** Takes the first (or last) untaken page of range `k`; -1 when it has none. */
function take(ranges: BigInt64Array, k: number, first: boolean): number {
  for (;;) {
    const range = Atomics.load(ranges, k);
    const next = nextOf(range);
    const end = endOf(range);
    if (next >= end) return -1;
    const taken = first ? pack(next + 1, end) : pack(next, end - 1);
    if (Atomics.compareExchange(ranges, k, range, taken) === range) return first ? next : end - 1;
  }
}

function pack(next: number, end: number): bigint {
  return (BigInt(end) << 32n) | BigInt(next);
}

function nextOf(range: bigint): number {
  return Number(range & 0xffffffffn);
}

function endOf(range: bigint): number {
  return Number(range >> 32n);
}

/** Reads the pages this thread takes (owning range `own`) into `pages`; returns how many. */
function readPages(reader: PageReader, ranges: BigInt64Array, own: number, fonts: FontTable, pages: (PageLayout | undefined)[], warnings: PageWarning[]): number {
  let read = 0;
  for (let i = takePage(ranges, own); i >= 0; i = takePage(ranges, own)) {
    pages[i] = analyseWarned(reader, i, fonts, warnings);
    read++;
  }
  return read;
}

function analyseWarned(reader: PageReader, index: number, fonts: FontTable, warnings: PageWarning[]): PageLayout {
  const texts: string[] = [];
  const page = reader.read(index, fonts, texts);
  for (const text of texts) warnings.push({ page: index, text });
  return page;
}

/**
 * Waits for the workers' pages until `missing` pages have come in or every worker has answered;
 * returns how many came in. Line font ids are mapped onto this thread's font table. The wait keeps
 * the process alive (idle workers do not).
 */
function collect(shares: Promise<PageClaimResult>[], pages: (PageLayout | undefined)[], warnings: PageWarning[], fonts: FontTable, missing: number): Promise<number> {
  const alive = setInterval(() => undefined, 1 << 30);
  return new Promise<number>((resolve) => {
    let open = shares.length;
    let received = 0;
    const settle = (): void => {
      if (open === 0 || received >= missing) resolve(received);
    };
    for (const share of shares) {
      void share.then((result) => {
        if (result.ok && received < missing) {
          const fontIds = result.fonts.names.map((name, id) => fonts.intern(name, result.fonts.flags[id]!));
          for (const page of result.pages) {
            for (const item of page.items) if (item.type === 'block') for (const line of item.block.lines) line.font = fontIds[line.font]!;
            pages[page.index] = page;
          }
          warnings.push(...result.warnings);
          received += result.pages.length;
        }
        open--;
        settle();
      });
    }
  }).finally(() => clearInterval(alive));
}

/** A page worker's side of `analysePages`. */
export async function analyseClaimed(task: PageClaimTask): Promise<PageClaimResult> {
  try {
    const engine = await loadEngine();
    const empty = { id: task.id, ok: true as const, pages: [], warnings: [], fonts: { names: [], flags: [] } };
    // Every page taken already (the other threads were quicker): no need to open the document.
    const page = takePage(task.ranges, task.range);
    if (page < 0) return empty;
    const reader = new PageReader(engine, openDocument(engine, task.bytes, task.password));
    const fonts = new FontTable();
    const pages: (PageLayout | undefined)[] = [];
    const warnings: PageWarning[] = [];
    try {
      pages[page] = analyseWarned(reader, page, fonts, warnings);
      readPages(reader, task.ranges, task.range, fonts, pages, warnings);
    } finally {
      reader.close();
    }
    const read = pages.filter((p): p is PageLayout => p !== undefined);
    return { id: task.id, ok: true, pages: read, warnings, fonts: { names: fonts.names, flags: fonts.flags } };
  } catch (error) {
    return { id: task.id, ok: false, message: (error as Error).message };
  }
}

/** The shared pool, grown to at least `size` workers. */
export function pagePool(size: number): PagePool {
  if (!pool || pool.size < size) {
    pool?.close();
    pool = new PagePool(size);
  }
  return pool;
}

export class PagePool {
  /** Outstanding tasks per live worker, and which of them keep the process alive. */
  private readonly live = new Map<Worker, { tasks: Set<number>; holding: Set<number> }>();
  private readonly pending = new Map<number, (r: PageClaimResult) => void>();
  private nextId = 1;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private spawn(): void {
    const worker = createWorker();
    const state = { tasks: new Set<number>(), holding: new Set<number>() };
    worker.on('message', (result: PageClaimResult) => {
      state.tasks.delete(result.id);
      state.holding.delete(result.id);
      if (state.holding.size === 0) worker.unref();
      const resolve = this.pending.get(result.id);
      this.pending.delete(result.id);
      resolve?.(result);
    });
    worker.on('error', () => this.retire(worker));
    worker.on('exit', () => this.retire(worker));
    worker.unref();
    this.live.set(worker, state);
  }

  private retire(worker: Worker): void {
    const state = this.live.get(worker);
    if (!state) return;
    this.live.delete(worker);
    // Tasks queued on a dead worker fail; the caller analyses those pages itself.
    for (const id of state.tasks) {
      const resolve = this.pending.get(id);
      this.pending.delete(id);
      resolve?.({ id, ok: false, message: 'page worker exited' });
    }
  }

  /** Stops the workers (idle ones at once; busy ones finish their pages first and fail over). */
  close(): void {
    for (const worker of this.live.keys()) void worker.terminate();
  }

  /**
   * Posts a task at once to the worker with the fewest outstanding tasks (a busy worker takes it
   * when done: no bookkeeping of free workers that would wait on this thread's event loop). With
   * `keepAlive` the worker keeps the process alive until it answers; without, the caller decides
   * how long to wait (see `collect`).
   */
  run(task: Omit<PageClaimTask, 'id'>, keepAlive = true): Promise<PageClaimResult> {
    const id = this.nextId++;
    let chosen: [Worker, { tasks: Set<number>; holding: Set<number> }] | undefined;
    for (const entry of this.live) if (!chosen || entry[1].tasks.size < chosen[1].tasks.size) chosen = entry;
    if (!chosen) return Promise.resolve({ id, ok: false, message: 'no page workers' });
    const [worker, state] = chosen;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      state.tasks.add(id);
      if (keepAlive) {
        state.holding.add(id);
        worker.ref();
      }
      worker.postMessage({ ...task, id });
    });
  }
}

function createWorker(): Worker {
  // The compiled PDFium goes along: the worker instantiates it instead of compiling its own.
  return startWorker(import.meta.url, 'page-worker', { workerData: { mark: PAGE_WORKER_MARK, pdfium: compiledPdfium() } });
}
