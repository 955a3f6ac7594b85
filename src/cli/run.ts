import { readFileSync } from 'node:fs';
import { DEFAULT_STRATEGY, listChunkers } from '../chunkers/registry.js';
import { supportedFormats } from '../parsers/registry.js';
import { EXIT_OK, EXIT_USAGE, type CliIO } from './io.js';

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

interface CommandModule {
  run: Command;
  help: () => string;
}

/** A command whose module is loaded when it runs or its help is asked for. */
function lazy<M>(load: () => Promise<M>, pick: (m: M) => CommandModule): () => Promise<CommandModule> {
  return async () => pick(await load());
}

/**
 * Each command's module is imported only when that command runs: `serve` brings fastify and the
 * MCP SDK, `eval` and `tune` the evaluation code, and an `ingest` needs none of them (every module
 * a process loads stays in its memory; docs/robustness.md, "Per process, measured").
 */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  ingest: lazy(() => import('./ingest-command.js'), (m) => ({ run: m.ingestCommand, help: () => m.INGEST_HELP })),
  search: lazy(() => import('./search-command.js'), (m) => ({ run: m.searchCommand, help: () => m.SEARCH_HELP })),
  embed: lazy(() => import('./embed-command.js'), (m) => ({ run: m.embedCommand, help: () => m.EMBED_HELP })),
  ls: lazy(() => import('./library-commands.js'), (m) => ({ run: m.lsCommand, help: () => m.LS_HELP })),
  show: lazy(() => import('./library-commands.js'), (m) => ({ run: m.showCommand, help: () => m.SHOW_HELP })),
  rm: lazy(() => import('./library-commands.js'), (m) => ({ run: m.rmCommand, help: () => m.RM_HELP })),
  stats: lazy(() => import('./library-commands.js'), (m) => ({ run: m.statsCommand, help: () => m.STATS_HELP })),
  export: lazy(() => import('./library-commands.js'), (m) => ({ run: m.exportCommand, help: () => m.EXPORT_HELP })),
  migrate: lazy(() => import('./migrate-command.js'), (m) => ({ run: m.migrateCommand, help: () => m.MIGRATE_HELP })),
  check: lazy(() => import('./check-command.js'), (m) => ({ run: m.checkCommand, help: () => m.CHECK_HELP })),
  parse: lazy(() => import('./parse-command.js'), (m) => ({ run: m.parseCommand, help: () => m.PARSE_HELP })),
  chunk: lazy(() => import('./chunk-command.js'), (m) => ({ run: m.chunkCommand, help: m.chunkHelp })),
  serve: lazy(() => import('./serve-command.js'), (m) => ({ run: (argv, io) => m.serveCommand(argv, io), help: () => m.SERVE_HELP })),
  demo: lazy(() => import('./demo-command.js'), (m) => ({ run: m.demoCommand, help: () => m.DEMO_HELP })),
  eval: lazy(() => import('./eval-command.js'), (m) => ({ run: m.evalCommand, help: () => m.EVAL_HELP })),
  tune: lazy(() => import('./tune-command.js'), (m) => ({ run: m.tuneCommand, help: () => m.TUNE_HELP })),
  worker: lazy(() => import('./worker-command.js'), (m) => ({ run: m.workerCommand, help: () => m.WORKER_HELP })),
  jobs: lazy(() => import('./jobs-command.js'), (m) => ({ run: m.jobsCommand, help: () => m.JOBS_HELP })),
  mcp: lazy(() => import('./mcp-command.js'), (m) => ({ run: m.mcpCommand, help: () => m.MCP_HELP })),
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
    io.out((await command()).help());
    return EXIT_OK;
  }
  const command = COMMANDS[first];
  if (!command) return unknownCommand(io, first);
  return (await command()).run(rest, io);
}

function unknownCommand(io: CliIO, name: string): number {
  const what = name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`;
  io.err(`groundwork: ${what}; commands: ${Object.keys(COMMANDS).join(', ')}\nRun 'groundwork --help' for usage.\n`);
  return EXIT_USAGE;
}
