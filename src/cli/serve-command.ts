import type { Library } from '../library/library.js';
import { KEY_SCOPES, loadKeys, newKey, type KeyScope } from '../serve/auth.js';
import { ServeOptionsSchema, type ServeSettingsInput } from '../serve/options.js';
import { serve, type ServeHandle } from '../serve/server.js';
import { inspectorPlugin } from '../inspector/plugin.js';
import { flag, integerValue, parseCommandArgs, stringValue, stringValues, UsageError, type ParsedArgs } from './args.js';
import { HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, libraryDirFrom, libraryStoreFrom, openLibrary } from './common.js';
import { EXIT_OK, reportError, type CliIO } from './io.js';
import { EMBED_FLAG_SPECS, EMBED_FLAGS_HELP, RERANK_FLAG_SPECS, RERANK_FLAGS_HELP } from './embed-options.js';
import { searchSetupFrom } from './search-setup.js';
import { mcpServePlugin } from '../mcp/serve-plugin.js';
import { MCP_FLAG_SPECS, MCP_FLAGS_HELP, mcpOptionsFrom } from './mcp-options.js';

const d = ServeOptionsSchema.shape;
const defaults = ServeOptionsSchema.parse({});

export const SERVE_HELP = `Usage: groundwork serve [options]
       groundwork serve --new-key NAME [--scope read-only|read-write]

Serves the library over HTTP: upload documents (ingested as background jobs you can follow with
Server-Sent Events), search, read documents and blocks; OpenAPI at /openapi.json, Dify's external
knowledge API at /retrieval. Runs until SIGTERM or Ctrl-C, then stops gracefully: new requests get
503, running requests and ingest jobs get --shutdown-grace seconds (a job still running then resumes
at the next start). Docs: docs/serve.md.

Options:
${LIBRARY_FLAG_HELP}
  --host HOST           ${d.host.description} (default ${defaults.host})
  --port N              ${d.port.description} (default ${defaults.port})
  --keys FILE           API keys, one a line: NAME read-only|read-write sha256:HEX (also the
                        GROUNDWORK_API_KEYS environment variable); with keys, every request but
                        /healthz and /openapi.json needs 'Authorization: Bearer KEY'
  --cors ORIGIN         allow this origin (repeatable; CORS is off by default)
  --max-upload-mb N     largest uploaded file in MiB (default ${defaults.maxUploadBytes / 1024 / 1024})
  --max-upload-files N  files per upload request (default ${defaults.maxUploadFiles})
  --rate N              requests per second per key (per client address without keys; default
                        ${defaults.rateLimit === false ? 'off' : defaults.rateLimit.perSecond}), bursts of --burst (default ${defaults.rateLimit === false ? '-' : defaults.rateLimit.burst})
  --burst N
  --no-rate-limit       no per-key rate limit
  --knowledge-id ID     the knowledge_id Dify sends (default: the library folder's name)
  --shutdown-grace S    seconds running work gets on shutdown (default ${defaults.shutdownGraceMs / 1000})
  --search-workers N    ${d.searchWorkers.description}
  --log                 log each request (JSON lines on stderr; API keys are never logged)
  --new-key NAME        print a new API key and its keys-file line, then exit (the key is shown
                        once; only its hash goes in the file)
  --scope S             the new key's scope: ${KEY_SCOPES.join(' or ')} (default read-write)

MCP for agents at /mcp (Streamable HTTP, the tools of 'groundwork mcp', docs/mcp.md): read-only
keys get the read tools, read-write keys also ingest when it is allowed.
${MCP_FLAGS_HELP.split('\n').filter((l) => !l.includes('--max-upload-bytes')).join('\n')}

Search (POST /v1/search, /retrieval, the MCP search tool) is 'groundwork search': bm25, vector or
hybrid (the default when the library has vectors of its model and an embedder), rerank on request.
The embedder and reranker are configured as for 'groundwork search':

${RERANK_FLAGS_HELP}

${EMBED_FLAGS_HELP}

Exit codes: 0 after a clean stop, 1 when it cannot start (port taken, library unreadable), 2 usage
error (also: a host beyond loopback without keys).
`;

const SPECS = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  host: { type: 'string' },
  port: { type: 'string', short: 'p' },
  keys: { type: 'string' },
  cors: { type: 'string', multiple: true },
  'max-upload-mb': { type: 'string' },
  'max-upload-files': { type: 'string' },
  rate: { type: 'string' },
  burst: { type: 'string' },
  'no-rate-limit': { type: 'boolean' },
  'knowledge-id': { type: 'string' },
  'shutdown-grace': { type: 'string' },
  'search-workers': { type: 'string' },
  log: { type: 'boolean' },
  'new-key': { type: 'string' },
  scope: { type: 'string' },
  describe: MCP_FLAG_SPECS.describe,
  'allow-ingest': MCP_FLAG_SPECS['allow-ingest'],
  ...RERANK_FLAG_SPECS,
  ...EMBED_FLAG_SPECS,
} as const;

/** The flags as serve settings (validated by the settings schema, like the library API's callers). */
export function serveSettingsFrom(args: ParsedArgs): ServeSettingsInput {
  const settings: ServeSettingsInput = {};
  const host = stringValue(args, 'host');
  if (host !== undefined) settings.host = host;
  const port = integerValue(args, 'port', 0);
  if (port !== undefined) settings.port = port;
  const cors = stringValues(args, 'cors');
  if (cors.length > 0) settings.corsOrigins = cors;
  const mb = integerValue(args, 'max-upload-mb', 1);
  if (mb !== undefined) settings.maxUploadBytes = mb * 1024 * 1024;
  const files = integerValue(args, 'max-upload-files', 1);
  if (files !== undefined) settings.maxUploadFiles = files;
  const rate = stringValue(args, 'rate');
  const burst = integerValue(args, 'burst', 1);
  if (flag(args, 'no-rate-limit')) {
    if (rate !== undefined || burst !== undefined) throw new UsageError('--no-rate-limit goes without --rate and --burst');
    settings.rateLimit = false;
  } else if (rate !== undefined || burst !== undefined) {
    const perSecond = rate === undefined ? (defaults.rateLimit as { perSecond: number }).perSecond : Number(rate);
    if (!Number.isFinite(perSecond) || perSecond <= 0) throw new UsageError(`--rate must be a positive number, got '${rate}'`);
    settings.rateLimit = { perSecond, burst: burst ?? Math.max(1, Math.ceil(perSecond * 2)) };
  }
  const knowledgeId = stringValue(args, 'knowledge-id');
  if (knowledgeId !== undefined) settings.knowledgeId = knowledgeId;
  const grace = stringValue(args, 'shutdown-grace');
  if (grace !== undefined) {
    const seconds = Number(grace);
    if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`--shutdown-grace must be seconds (0 or more), got '${grace}'`);
    settings.shutdownGraceMs = Math.round(seconds * 1000);
  }
  const searchWorkers = integerValue(args, 'search-workers', 0);
  if (searchWorkers !== undefined) settings.searchWorkers = searchWorkers;
  return settings;
}

export async function serveCommand(argv: readonly string[], io: CliIO, stop: AbortSignal = processSignals()): Promise<number> {
  let library: Library | undefined;
  let handle: ServeHandle | undefined;
  try {
    const args = parseCommandArgs(argv, SPECS);
    if (flag(args, 'help')) {
      io.out(SERVE_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const keyName = stringValue(args, 'new-key');
    if (keyName !== undefined) {
      const scope = stringValue(args, 'scope') ?? 'read-write';
      if (!(KEY_SCOPES as readonly string[]).includes(scope)) throw new UsageError(`--scope must be ${KEY_SCOPES.join(' or ')}, got '${scope}'`);
      const { key, line } = newKey(keyName, scope as KeyScope);
      io.out(`${key}\n`);
      io.err(`groundwork: the key above is shown once; add this line to your keys file (--keys FILE):\n${line}\n`);
      return EXIT_OK;
    }
    const settings = serveSettingsFrom(args);
    const keysFile = stringValue(args, 'keys');
    const keys = loadKeys({ ...(keysFile !== undefined && { file: keysFile }), ...(process.env.GROUNDWORK_API_KEYS !== undefined && { env: process.env.GROUNDWORK_API_KEYS }) });
    const setup = searchSetupFrom(args);
    library = await openLibrary(libraryDirFrom(args), io, libraryStoreFrom(args));
    const { reranker } = await setup.apply(library, io, 'serve');
    const mcp = mcpServePlugin({ ...mcpOptionsFrom(args), ...(settings.maxUploadBytes !== undefined && { maxUploadBytes: settings.maxUploadBytes }) }, { ...(reranker && { reranker }) });
    handle = await serve(library, { ...settings, keys, plugins: [mcp, inspectorPlugin()], ...(reranker && { reranker }), ...(flag(args, 'log') && { logger: { level: 'info' } }) });
    io.err(`groundwork: serving ${library.dir} at ${handle.url} (${keys.length > 0 ? `${keys.length} API key${keys.length === 1 ? '' : 's'}` : 'no keys: loopback only'}); API: ${handle.url}/openapi.json; stop with Ctrl-C\n`);
    await new Promise<void>((resolve) => {
      if (stop.aborted) resolve();
      stop.addEventListener('abort', () => resolve(), { once: true });
    });
    io.err('groundwork: stopping (new requests get 503; running work gets its grace)\n');
    await handle.close();
    handle = undefined;
    io.err('groundwork: stopped\n');
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error, 'serve');
  } finally {
    await handle?.close();
    await library?.close();
  }
}

/** Aborts on the first SIGTERM or SIGINT. */
function processSignals(): AbortSignal {
  const controller = new AbortController();
  const onSignal = () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}
