import { readFileSync } from 'node:fs';
import { DEFAULT_STRATEGY, listChunkers } from '../chunkers/registry.js';
import { supportedFormats } from '../parsers/registry.js';
import { chunkCommand, chunkHelp } from './chunk-command.js';
import { DEMO_HELP, demoCommand } from './demo-command.js';
import { EXIT_OK, EXIT_USAGE, type CliIO } from './io.js';
import { PARSE_HELP, parseCommand } from './parse-command.js';

/** package.json sits two levels above this module, in src/cli/ and in dist/cli/ alike. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function mainHelp(): string {
  const strategies = listChunkers()
    .map((c) => (c.name === DEFAULT_STRATEGY ? `${c.name} (default)` : c.name))
    .join(', ');
  return `groundwork ${version()}: parse documents into one model and chunk them for RAG

Usage: groundwork <command> [options]

Commands:
  demo [DIR]      parse and chunk the bundled samples (or the files in DIR) and show the result
  parse FILE|-    parse one document; print its canonical text (--md) or the Document (--json)
  chunk FILE|-    split one document into chunks with heading paths, pages, offsets, exact tokens
  help [COMMAND]  show help for a command (same as: groundwork COMMAND --help)

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
  demo: { run: demoCommand, help: () => DEMO_HELP },
  parse: { run: parseCommand, help: () => PARSE_HELP },
  chunk: { run: chunkCommand, help: chunkHelp },
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
