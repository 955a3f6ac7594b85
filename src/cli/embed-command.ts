import type { EmbedRunProgress, EmbedRunReport, Library } from '../library/library.js';
import { VECTOR_QUANTIZATIONS, type VectorQuantization } from '../store/types.js';
import { flag, integerValue, parseCommandArgs, stringValue, UsageError } from './args.js';
import { count, displayPath, formatTable, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary } from './common.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, embedFlagsFrom } from './embed-options.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { formatDuration, terminalOf } from './progress.js';

export const EMBED_HELP = `Usage: groundwork embed [options]

Embeds every block of the library that has no vector of the library's model yet: blocks ingested
without an embedder, documents whose embedding failed, everything after a switch of model. Each
block is embedded as its contextual text (its heading path and caption, then its text); identical
texts are embedded once, and texts already embedded (re-ingest, re-chunking) are reused. Batches are
committed as they go: an interrupted run loses at most one batch, and running it again goes on.

The embedder comes from the flags below, else GROUNDWORK_EMBEDDINGS_*, else the library's settings
from an earlier run. A library keeps the vectors of one model: an embedder of another model is
refused unless --model names it.

Options:
${LIBRARY_FLAG_HELP}
  --model NAME          switch the library to this model (the endpoint's model name, as
                        --embed-model) and embed everything for it; the old model's vectors are kept
                        (switch back without re-embedding) unless --drop-old
  --drop-old            with --model: delete the old model's vectors
  --quantization Q      how the vectors are indexed for search: ${VECTOR_QUANTIZATIONS.join(', ')} (none: exact;
                        int8 / binary: an approximate index for large libraries, its best
                        candidates rescored exactly; SQLite: an inverted file of int8 or bit
                        codes, PostgreSQL: HNSW); a library setting, kept for later runs
  --batch N             blocks per committed batch (default 256)
  --json                print the report as JSON

${EMBED_FLAGS_HELP}

On a terminal, a progress line (blocks done/total, documents, rate, ETA) is drawn on stderr.
Exit codes: 0 done; 1 no library, no embedder configured, or the embedder failed (what was
embedded before the failure is kept); 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  model: { type: 'string' },
  'drop-old': { type: 'boolean' },
  quantization: { type: 'string' },
  batch: { type: 'string' },
  json: { type: 'boolean' },
  ...EMBED_FLAG_SPECS,
} as const;

const REDRAW_MS = 200;

export async function embedCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(EMBED_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 0) throw new UsageError(`embed takes no arguments, got '${args.positionals[0]}'`);
    const model = stringValue(args, 'model');
    if (model !== undefined && model.trim() === '') throw new UsageError('--model needs a model name');
    const flags = embedFlagsFrom(args);
    if (model !== undefined) {
      if (flags.model !== undefined && flags.model !== model) throw new UsageError(`--model ${model} and --embed-model ${String(flags.model)} disagree: give one`);
      flags.model = model;
    }
    if (flag(args, 'drop-old') && model === undefined) throw new UsageError('--drop-old goes with --model (the model to switch to)');
    const quantization = stringValue(args, 'quantization');
    if (quantization !== undefined && !(VECTOR_QUANTIZATIONS as readonly string[]).includes(quantization)) {
      throw new UsageError(`--quantization must be one of ${VECTOR_QUANTIZATIONS.join(', ')}, got '${quantization}'`);
    }
    const batch = integerValue(args, 'batch', 1);

    library = await openExistingLibrary(args, io);
    if (quantization !== undefined) await library.setSetting('quantization', quantization as VectorQuantization);
    const embedder = await library.useEmbedder({ flags, ...(model !== undefined && { switchModel: true, dropOld: flag(args, 'drop-old') }) });
    if (!embedder) {
      throw new UsageError('no embedder configured: give --embed-url URL --embed-model NAME (or GROUNDWORK_EMBEDDINGS_URL / GROUNDWORK_EMBEDDINGS_MODEL), or --embed-model-path DIR for a local model');
    }
    const terminal = terminalOf(io);
    let lastDraw = -Infinity;
    const onProgress = terminal?.errIsTTY
      ? (p: EmbedRunProgress) => {
          if (p.elapsedMs - lastDraw < REDRAW_MS && p.blocksDone < p.blocksTotal) return;
          lastDraw = p.elapsedMs;
          io.err(`\r\x1b[K${renderEmbedProgress(p)}`);
        }
      : undefined;
    let report: EmbedRunReport;
    try {
      report = await library.embed({ ...(batch !== undefined && { batchSize: batch }), ...(onProgress && { onProgress }) });
    } finally {
      if (onProgress) io.err('\r\x1b[K');
    }
    if (quantization !== undefined) await library.setSetting('quantization', quantization as VectorQuantization);
    if (flag(args, 'json')) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else io.out(formatEmbedRun(report, library.dir));
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'embed');
  } finally {
    await library?.close();
  }
}

/** `1200/5000 blocks  14 documents  310 blocks/s  ETA 0:12`. */
export function renderEmbedProgress(p: EmbedRunProgress): string {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.blocksDone / seconds : 0;
  const eta = rate > 0 ? formatDuration((p.blocksTotal - p.blocksDone) / rate) : '--:--';
  return `${p.blocksDone}/${p.blocksTotal} blocks  ${count(p.documentsDone, 'document')}  ${Math.round(rate)} blocks/s  ETA ${eta}`;
}

export function formatEmbedRun(r: EmbedRunReport, dir: string): string {
  const rows: [string, string][] = [
    ['blocks given vectors', String(r.blocks)],
    ['texts embedded', String(r.embedded)],
    ['blocks reused (text already embedded)', String(r.reused)],
    ['blocks split (over the input limit)', String(r.split)],
    ['windows of split blocks', String(r.windows)],
    ['context left out of windows', String(r.contextDropped)],
    ['tokens sent', String(r.tokens)],
    ['unused vectors deleted', String(r.pruned)],
    ['duration', `${(r.durationMs / 1000).toFixed(1)} s`],
  ];
  return `Library ${displayPath(dir)}, vectors of ${r.model}\n\n${formatTable(['', 'count'], rows, [1])}`;
}
