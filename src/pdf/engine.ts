import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { init } from '@embedpdf/pdfium';
import { GroundworkError } from '../errors.js';

/**
 * PDFium (WebAssembly, `@embedpdf/pdfium`) behind a small typed layer. Hot loops call the raw wasm
 * exports: the package's wrapped `_FPDF*` functions carry per-call assertion checks that cost 2-2.5x
 * (research/pdfium.md). Memory is manual: whoever opens a document, page or text page closes it.
 * One engine per thread; every call is synchronous.
 */

/** The raw wasm exports we call; all handles and pointers are plain numbers (wasm32). */
export type RawFn = (...args: number[]) => number;
export type RawExports = Record<string, RawFn>;

interface PdfiumModuleLike {
  wasmExports: unknown;
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
}

export interface Engine {
  readonly raw: RawExports;
  /** Views of the wasm heap; re-read after any call that may grow memory (they are replaced then). */
  heap(): PdfiumModuleLike;
  malloc(size: number): number;
  free(ptr: number): void;
  /** A scratch area of 64 bytes for out-parameters, allocated once. */
  readonly scratch: number;
}

/** A compiled WebAssembly module: opaque here, and cloneable to worker threads. */
export type WasmModule = object;

/** The part of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: object) => object;
}

const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let enginePromise: Promise<Engine> | undefined;
let compiled: WasmModule | undefined;

/**
 * The engine of this thread, loaded once from the wasm file bundled in node_modules (never a URL).
 * A page worker passes the module its parent compiled: instantiating it skips a second compile of
 * the 4.6 MB module, and the threads share its optimised code.
 */
export function loadEngine(module?: WasmModule): Promise<Engine> {
  enginePromise ??= createEngine(module);
  return enginePromise;
}

/**
 * A PDFium instance of its own (not this thread's engine), from the module this thread compiled:
 * for work whose memory must not stay. A wasm heap only grows, so a 300 dpi render's bitmap (62 MB
 * for a 19 x 9 inch page) would stay in the thread's engine for the rest of the document and the
 * worker's life; an instance nobody references is freed whole by the next garbage collection.
 * Instantiating the compiled module takes ~5-12 ms.
 */
export async function loadScratchEngine(): Promise<Engine> {
  await loadEngine();
  return createEngine(compiled);
}

/** The compiled PDFium module of this thread, once `loadEngine` has run (handed to page workers). */
export function compiledPdfium(): WasmModule | undefined {
  return compiled;
}

async function createEngine(given: WasmModule | undefined): Promise<Engine> {
  const wasm = given ?? (await wasmApi.compile(readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'))));
  compiled = wasm;
  // Emscripten's hook for instantiating a module the caller already has.
  const instantiateWasm = (imports: object, receive: (instance: object, module: WasmModule) => unknown): unknown => receive(new wasmApi.Instance(wasm, imports), wasm);
  const wrapped = await init({ instantiateWasm } as never);
  const module = wrapped.pdfium as unknown as PdfiumModuleLike;
  const raw = module.wasmExports as RawExports;
  (raw.PDFiumExt_Init ?? raw.FPDF_InitLibrary)!();
  const malloc = raw.malloc!;
  const free = raw.free!;
  const scratch = malloc(64);
  return { raw, heap: () => module, malloc, free, scratch };
}

// FPDF_GetLastError codes.
const ERR_PASSWORD = 4;
const ERR_SECURITY = 5;

export interface OpenedDocument {
  readonly handle: number;
  readonly pageCount: number;
  /** True when the file carries an encryption dictionary (opened with the user password or an empty one). */
  readonly encrypted: boolean;
  close(): void;
  /**
   * Closes the PDFium document and opens it again from the same bytes in the heap (not copied
   * again): everything PDFium cached for it (fonts, images) is freed. This handle is closed after.
   */
  reopen(): OpenedDocument;
}

/**
 * Opens PDF bytes. Throws EMPTY for zero bytes, ENCRYPTED when a password is needed and missing or
 * wrong, CORRUPT when PDFium cannot read the file or repairs it to zero pages.
 */
export function openDocument(engine: Engine, bytes: Uint8Array, password: string | undefined, file?: string): OpenedDocument {
  if (bytes.length === 0) throw new GroundworkError('EMPTY', 'the PDF file is empty (0 bytes)', { file });
  const dataPtr = engine.malloc(bytes.length);
  engine.heap().HEAPU8.set(bytes, dataPtr);
  return loadFromHeap(engine, dataPtr, bytes.length, password, file);
}

/** Loads the PDF whose bytes are at `dataPtr` in the heap; the document owns (frees) them. */
function loadFromHeap(engine: Engine, dataPtr: number, length: number, password: string | undefined, file: string | undefined): OpenedDocument {
  const { raw } = engine;
  const pwdPtr = password ? allocUtf8(engine, password) : 0;
  const handle = raw.FPDF_LoadMemDocument64!(dataPtr, length, pwdPtr);
  if (pwdPtr) engine.free(pwdPtr);
  if (!handle) {
    const code = raw.FPDF_GetLastError!();
    engine.free(dataPtr);
    if (code === ERR_PASSWORD || code === ERR_SECURITY) {
      throw new GroundworkError(
        'ENCRYPTED',
        password ? 'the PDF password is wrong' : 'the PDF is encrypted: supply its password (--password)',
        { file },
      );
    }
    throw new GroundworkError('CORRUPT', `not a readable PDF (PDFium error ${code}): the file is damaged or not a PDF`, { file });
  }
  const pageCount = raw.FPDF_GetPageCount!(handle);
  const encrypted = raw.FPDF_GetSecurityHandlerRevision!(handle) !== -1;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    raw.FPDF_CloseDocument!(handle);
    engine.free(dataPtr);
  };
  const reopen = (): OpenedDocument => {
    if (closed) throw new Error('the document is closed');
    closed = true;
    raw.FPDF_CloseDocument!(handle);
    return loadFromHeap(engine, dataPtr, length, password, file);
  };
  if (pageCount <= 0) {
    close();
    throw new GroundworkError('CORRUPT', 'the PDF has no readable pages (damaged beyond repair)', { file });
  }
  return { handle, pageCount, encrypted, close, reopen };
}

export function allocUtf8(engine: Engine, text: string): number {
  const bytes = Buffer.from(`${text}\0`, 'utf8');
  const ptr = engine.malloc(bytes.length);
  engine.heap().HEAPU8.set(bytes, ptr);
  return ptr;
}

/** Reads a NUL-terminated UTF-16LE string of at most `byteLength` bytes from the heap. */
export function readUtf16(engine: Engine, ptr: number, byteLength: number): string {
  const u8 = engine.heap().HEAPU8;
  let end = ptr;
  const limit = ptr + byteLength - 1;
  while (end < limit && (u8[end] !== 0 || u8[end + 1] !== 0)) end += 2;
  return Buffer.from(u8.buffer, u8.byteOffset + ptr, end - ptr).toString('utf16le');
}
