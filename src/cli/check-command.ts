import { CheckOptionsSchema, type CheckFinding, type CheckOptions, type CheckReport } from '../store/check.js';
import { flag, parseCommandArgs, UsageError, type OptionSpecs } from './args.js';
import { displayPath, HELP_FLAG_SPEC, LIBRARY_FLAG_HELP, LIBRARY_FLAG_SPEC, openExistingLibrary } from './common.js';
import { EXIT_FAILED, EXIT_OK, reportError, type CliIO } from './io.js';
import type { Library } from '../library/library.js';

/** `repair` -> `--repair`: the check options' flags, one per field of CheckOptionsSchema. */
const OPTION_FLAGS = Object.keys(CheckOptionsSchema.shape).map((key) => ({ key: key as keyof CheckOptions, flag: key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) }));

const CHECK_SPECS: OptionSpecs = {
  ...HELP_FLAG_SPEC,
  ...LIBRARY_FLAG_SPEC,
  json: { type: 'boolean' },
  ...Object.fromEntries(OPTION_FLAGS.map((o) => [o.flag, { type: 'boolean' as const }])),
};

function optionHelp(): string {
  return OPTION_FLAGS.map(({ key, flag }) => wrap(`  --${flag}`.padEnd(24), CheckOptionsSchema.shape[key].description ?? '')).join('\n');
}

/** Help text in lines of at most 100 columns, continuation lines under the first's text. */
function wrap(head: string, text: string): string {
  const lines: string[] = [];
  let line = head;
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > 100 && line.trim() !== head.trim()) {
      lines.push(line);
      line = ' '.repeat(head.length);
    }
    line += (line.endsWith(' ') ? '' : ' ') + word;
  }
  lines.push(line);
  return lines.join('\n');
}

export const CHECK_HELP = `Usage: groundwork check [--repair] [--full] [--json] [--library DIR]

Checks the library: the database file (SQLite's quick_check), the search index against the blocks
(its row count, index_stats and every term's term_df exactly; a sample of 1000 blocks re-analysed
and looked up), orphan blocks, paths and parse-cache entries, each document's blocks, every kept
original under files/ (present, its size, its sha256 equal to its name), leftover files, and the
settings. Safe while other processes ingest and search.

Options:
${LIBRARY_FLAG_HELP}
${optionHelp()}
  --json                the report as JSON: ok, checked (what, full or sampled, how many), found,
                        repairs, remaining (each finding: check, severity, message, count,
                        examples, repairable)
Exit codes: 0 no error remains (leftovers such as unreferenced copies do not count), 1 errors
remain (or the library cannot be opened), 2 usage error.
`;

export async function checkCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let library: Library | undefined;
  try {
    const args = parseCommandArgs(argv, CHECK_SPECS);
    if (flag(args, 'help')) {
      io.out(CHECK_HELP);
      return EXIT_OK;
    }
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
    const options: CheckOptions = Object.fromEntries(OPTION_FLAGS.map(({ key, flag: name }) => [key, flag(args, name)]));
    library = await openExistingLibrary(args, io);
    const report = await library.check(options);
    io.out(flag(args, 'json') ? `${JSON.stringify(report, null, 2)}\n` : formatReport(library.dir, report));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  } catch (error) {
    return reportError(io, error, 'check');
  } finally {
    await library?.close();
  }
}

/** The report for a terminal: what was checked, what was found, what repair did, what remains. */
export function formatReport(dir: string, report: CheckReport): string {
  const lines: string[] = [];
  const mode = report.full ? 'full check' : 'quick check (--full: integrity_check, FTS5 check, every block)';
  lines.push(`Library ${displayPath(dir)}: ${mode}, ${report.durationMs} ms`, '');
  const failed = new Set(report.found.map((f) => f.check));
  const width = Math.max(...report.checked.map((c) => c.check.length), 5);
  for (const c of report.checked) {
    const scope = c.scope === 'sampled' ? `sampled ${c.items}` : `all ${c.items}`;
    lines.push(`  ${failed.has(c.check) ? 'FOUND' : 'ok   '}  ${c.check.padEnd(width)}  ${c.what} (${scope})`);
  }
  if (report.found.length > 0) {
    lines.push('', 'Found:');
    for (const f of report.found) lines.push(...formatFinding(f));
  }
  if (report.repair) {
    lines.push('', report.repairs.length > 0 ? 'Repaired:' : 'Repaired: nothing to repair');
    for (const r of report.repairs) lines.push(`  ${r.check}: ${r.action}`);
    if (report.found.length > 0) {
      lines.push('', report.remaining.length > 0 ? 'Still found after the repair:' : 'Nothing found after the repair.');
      for (const f of report.remaining) lines.push(...formatFinding(f));
    }
  }
  const errors = report.remaining.filter((f) => f.severity === 'error');
  const leftovers = report.remaining.filter((f) => f.severity === 'leftover');
  lines.push('');
  if (errors.length === 0) {
    lines.push(leftovers.length === 0 ? 'The library is consistent.' : `The library is consistent; ${leftovers.length} kind(s) of leftovers${report.repair ? '' : ' (check --repair removes them)'}.`);
  } else {
    const repairable = errors.some((f) => f.repairable);
    lines.push(`${errors.length} kind(s) of problems${report.repair ? ' remain' : ''}.${!report.repair && repairable ? ' Run groundwork check --repair.' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function formatFinding(f: CheckFinding): string[] {
  const lines = [`  ${f.severity === 'error' ? 'error   ' : 'leftover'}  ${f.check}: ${f.message}${f.repairable ? '' : ' (not repairable here)'}`];
  for (const example of f.examples) lines.push(`              ${example}`);
  return lines;
}
