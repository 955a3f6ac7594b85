import { readFileSync } from 'node:fs';
import { DEFAULT_STRATEGY, listChunkers } from '../chunkers/registry.js';
import { supportedFormats } from '../parsers/registry.js';
import { CHECK_HELP, checkCommand } from './check-command.js';
import { chunkCommand, chunkHelp } from './chunk-command.js';
import { DEMO_HELP, demoCommand } from './demo-command.js';
import { EMBED_HELP, embedCommand } from './embed-command.js';
import { EVAL_HELP, evalCommand } from './eval-command.js';
import { INGEST_HELP, ingestCommand } from './ingest-command.js';
import { EXIT_OK, EXIT_USAGE, type CliIO } from './io.js';
import { EXPORT_HELP, exportCommand, LS_HELP, lsCommand, RM_HELP, rmCommand, SHOW_HELP, showCommand, STATS_HELP, statsCommand } from './library-commands.js';
import { MIGRATE_HELP, migrateCommand } from './migrate-command.js';
import { MCP_HELP, mcpCommand } from './mcp-command.js';
import { PARSE_HELP, parseCommand } from './parse-command.js';
import { SEARCH_HELP, searchCommand } from './search-command.js';
import { SERVE_HELP, serveCommand } from './serve-command.js';
import { TUNE_HELP, tuneCommand } from './tune-command.js';
import { JOBS_HELP, jobsCommand } from './jobs-command.js';
import { WORKER_HELP, workerCommand } from './worker-command.js';

/** package.json sits two levels above this module, in src/cli/ and in dist/cli/ alike. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function mainHelp(): string {
  const strategies = listChunkers()
    .map((c) => (c.name === DEFAULT_STRATEGY ? `${c.name} (default)` : c.name))
    .join(', ');
  return `groundwork ${version()}: parse documents into one model, chunk them for RAG, search them

Usage: groundwork <command> [options]

Commands:
  ingest PATH...  add files and folders to the library (parse, chunk, index); report what changed
  search QUERY    search the library's blocks: BM25 (English and Chinese), vector or hybrid
  embed           embed the blocks that have no vector of the library's model (or switch models)
  ls              list the library's documents
  show DOC        one document's fields (--blocks: and its blocks)
  rm DOC          remove a document from the library
  stats           counts of documents, blocks, tokens, formats
  export          every block as JSONL: our own shape, LangChain Documents or LlamaIndex TextNodes
  migrate         copy a SQLite library into PostgreSQL (--from DIR --to postgres://...)
  check           check the library (database, search index, originals); --repair fixes what it can
  parse FILE|-    parse one document; print its canonical text (--md) or the Document (--json)
  chunk FILE|-    split one document into chunks with heading paths, pages, offsets, exact tokens
  serve           the library over HTTP: upload, jobs (SSE), search, documents, OpenAPI, Dify
  demo [DIR]      tour of the bundled samples (or DIR): parse, chunk, ingest, search in two languages
  eval DATASET... score chunking configurations on a question set (hit@k, MRR, IoU, hit@budget)
  tune DIR        unit lengths of a corpus and a recommended structure chunk size
  worker          take ingest jobs from a Postgres library's queue (ingest --queue) and ingest them
  jobs            the queue: jobs waiting, running, done, failed (with reasons), workers' throughput
  mcp             serve the library to agents over MCP (stdio): search with citations, outlines, sections
  help [COMMAND]  show help for a command (same as: groundwork COMMAND --help)

The library commands take --library DIR (default: $GROUNDWORK_HOME, else ./.groundwork), or
--postgres URL (default: $GROUNDWORK_DATABASE_URL) for a library in PostgreSQL.

Options:
  -h, --help      show this help
  -v, --version   print the version

Formats: ${supportedFormats().join(', ')}
Strategies: ${strategies}
Docs: docs/cli.md
`;
}

type Command = (argv: readonly string[], io: CliIO) => Promise<number>;

const COMMANDS: Record<string, { run: Command; help: () => string }> = {
  ingest: { run: ingestCommand, help: () => INGEST_HELP },
  search: { run: searchCommand, help: () => SEARCH_HELP },
  embed: { run: embedCommand, help: () => EMBED_HELP },
  ls: { run: lsCommand, help: () => LS_HELP },
  show: { run: showCommand, help: () => SHOW_HELP },
  rm: { run: rmCommand, help: () => RM_HELP },
  stats: { run: statsCommand, help: () => STATS_HELP },
  export: { run: exportCommand, help: () => EXPORT_HELP },
  migrate: { run: migrateCommand, help: () => MIGRATE_HELP },
  check: { run: checkCommand, help: () => CHECK_HELP },
  parse: { run: parseCommand, help: () => PARSE_HELP },
  chunk: { run: chunkCommand, help: chunkHelp },
  serve: { run: (argv, io) => serveCommand(argv, io), help: () => SERVE_HELP },
  demo: { run: demoCommand, help: () => DEMO_HELP },
  eval: { run: evalCommand, help: () => EVAL_HELP },
  tune: { run: tuneCommand, help: () => TUNE_HELP },
  worker: { run: workerCommand, help: () => WORKER_HELP },
  jobs: { run: jobsCommand, help: () => JOBS_HELP },
  mcp: { run: mcpCommand, help: () => MCP_HELP },
};

/** Runs one command line and returns the exit code; never calls process.exit, so output drains. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.err(mainHelp());
    return EXIT_USAGE;
  }
  if (first === '-h' || first === '--help') {
    io.out(mainHelp());
    return EXIT_OK;
  }
  if (first === '-v' || first === '--version') {
    io.out(`${version()}\n`);
    return EXIT_OK;
  }
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) {
      io.out(mainHelp());
      return EXIT_OK;
    }
    const command = COMMANDS[topic];
    if (!command) return unknownCommand(io, topic);
    io.out(command.help());
    return EXIT_OK;
  }
  const command = COMMANDS[first];
  if (!command) return unknownCommand(io, first);
  return command.run(rest, io);
}

function unknownCommand(io: CliIO, name: string): number {
  const what = name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`;
  io.err(`groundwork: ${what}; commands: ${Object.keys(COMMANDS).join(', ')}\nRun 'groundwork --help' for usage.\n`);
  return EXIT_USAGE;
}
