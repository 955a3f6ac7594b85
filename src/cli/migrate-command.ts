import { migrateLibrary, type MigrateReport } from '../library/migrate.js';
import { flag, integerValue, parseCommandArgs, stringValue, UsageError } from './args.js';
import { count, DATABASE_SCHEMA_ENV, DATABASE_URL_ENV, displayPath, formatTable, HELP_FLAG_SPEC, libraryDirFrom } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { formatDuration, terminalOf } from './progress.js';

export const MIGRATE_HELP = `Usage: groundwork migrate --from DIR --to postgres://... [options]

Copies a SQLite library (DIR/library.sqlite and its files/) into PostgreSQL: settings, every
document with its paths, blocks, parse cache and kept original (into the database), one
transaction per document, one at a time by default; then every vector model's vectors (pgvector)
with their block links and the model's quantization. The search index is rebuilt in the database
from the blocks with the same analysis, so searches rank as before. At the end every copied
document is checked in the database (its blocks and paths), and every model's vectors (linked
blocks, quantization); a difference is an error. Running it again copies again and replaces what
is there; the SQLite library is only read.

Options:
  --from DIR            the SQLite library folder (default: $GROUNDWORK_HOME, else ./.groundwork)
  --to URL              the database: postgres://user:password@host:port/database
                        (default $${DATABASE_URL_ENV})
  --postgres-schema S   the schema to copy into (default $${DATABASE_SCHEMA_ENV}, else groundwork)
  --concurrency N       documents written at once (default 1: equal-score hits keep the
                        SQLite library's order; more is somewhat faster, ties may reorder)
  --json                print the report as JSON

Exit codes: 0 copied and checked; 1 no library at DIR, the server cannot be reached, or the check
failed; 2 usage error.
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  from: { type: 'string' },
  to: { type: 'string' },
  'postgres-schema': { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function migrateCommand(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(MIGRATE_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const from = libraryDirFrom({ ...args, values: { ...args.values, library: stringValue(args, 'from') } });
    const url = stringValue(args, 'to') ?? process.env[DATABASE_URL_ENV];
    if (url === undefined || url.trim() === '') throw new UsageError(`missing --to URL (postgres://user:password@host:port/database, or $${DATABASE_URL_ENV})`);
    const schema = stringValue(args, 'postgres-schema') ?? (process.env[DATABASE_SCHEMA_ENV]?.trim() || undefined);
    const concurrency = integerValue(args, 'concurrency', 1);

    const tty = terminalOf(io)?.errIsTTY === true;
    const started = performance.now();
    let lastDraw = -Infinity;
    const report = await migrateLibrary(from, { kind: 'postgres', url, ...(schema !== undefined && { schema }) }, {
      ...(concurrency !== undefined && { concurrency }),
      onProgress: (p) => {
        const at = performance.now();
        const last = p.documents >= p.documentsTotal && p.vectorBlocks >= p.vectorBlocksTotal;
        if (!last && at - lastDraw < 250) return;
        lastDraw = at;
        const vectors = p.vectorBlocksTotal > 0 ? `, ${p.vectorBlocks}/${p.vectorBlocksTotal} vector links` : '';
        const line = `migrate: ${p.documents}/${p.documentsTotal} documents, ${p.blocks}/${p.blocksTotal} blocks${vectors}, ${formatDuration((at - started) / 1000)}`;
        // On a terminal the line is redrawn; elsewhere only the last one is written.
        if (tty) io.err(`\r\x1b[2K${line}${last ? '\n' : ''}`);
        else if (last) io.err(`${line}\n`);
      },
    });
    if (flag(args, 'json')) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else io.out(formatMigrateReport(report, from));
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'migrate');
  }
}

function formatMigrateReport(report: MigrateReport, from: string): string {
  const rows: [string, string, string][] = [
    ['documents', String(report.documents), String(report.target.documents)],
    ['blocks', String(report.blocks), String(report.target.blocks)],
    ['paths', String(report.paths), String(report.target.paths)],
    ['parse-cache entries', String(report.parseCacheEntries), String(report.target.parseCacheEntries)],
    ...report.vectors.map((v): [string, string, string] => [`vectors ${v.model} (${v.quantization})`, `${v.vectors} for ${v.blocks} blocks`, '']),
    ['originals', String(report.originals), ''],
    ['settings', String(report.settings), ''],
  ];
  let text = `Copied ${displayPath(from)} into ${report.location} in ${formatDuration(report.durationMs / 1000)}; checked.\n\n`;
  text += formatTable(['', 'copied', 'now in the database'], rows, [1, 2]);
  if (report.originalsMissing.length > 0) {
    text += `\n${count(report.originalsMissing.length, 'original')} named by the library but missing (copied without):\n`;
    text += report.originalsMissing.map((p) => `  ${displayPath(p)}\n`).join('');
  }
  return text;
}
