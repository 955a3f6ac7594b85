/**
 * `npm run fuzz`: fuzz every parser and chunker for a while and print what breaks.
 *
 *   npm run fuzz                                   5 minutes, a random seed (printed)
 *   npm run fuzz -- --minutes 30 --seed 42         a longer, repeatable run
 *   npm run fuzz -- --format docx,pdf              only these targets (parse:F, chunk:S, parse, chunk)
 *   npm run fuzz -- --seed 42 --case 1234          one case of a run again
 *   npm run fuzz -- --replay .fuzz/findings/X.json replay a reproducer (exit 1 while it still fails)
 *   npm run fuzz -- --list                         targets and their seed files
 *
 * Reproducers go to .fuzz/findings/ (gitignored): the input bytes (or text), the seed and case
 * index, the mutation steps, what happened, and the one-line command that replays it.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Schedule } from './cases.js';
import { HARD_KINDS, loadReproducer } from './findings.js';
import { runFuzz, runOne, type FuzzReport, type SeenFinding } from './run.js';

const HELP = `usage: npm run fuzz -- [--minutes N] [--seed S] [--format F[,F...]] [--workers N] [--timeout SECONDS]
                       [--heap MB] [--rss MB] [--slow SECONDS] [--ocr auto|off] [--max-seed-bytes N] [--max-chars N]
                       [--cases N] [--case I] [--out DIR] [--replay FILE] [--list]`;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    format: { type: 'string' },
    workers: { type: 'string', default: '2' },
    timeout: { type: 'string', default: '120' },
    heap: { type: 'string', default: '1024' },
    rss: { type: 'string', default: '3072' },
    slow: { type: 'string', default: '15' },
    ocr: { type: 'string', default: 'auto' },
    'max-seed-bytes': { type: 'string' },
    'max-chars': { type: 'string', default: '50000' },
    cases: { type: 'string' },
    case: { type: 'string' },
    out: { type: 'string', default: '.fuzz/findings' },
    replay: { type: 'string' },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

function num(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`fuzz: --${name} must be a non-negative number, got ${JSON.stringify(value)}\n${HELP}`);
    process.exit(2);
  }
  return n;
}

const pool = {
  workers: Math.max(1, num('workers', values.workers)!),
  timeoutMs: num('timeout', values.timeout)! * 1000,
  heapMb: num('heap', values.heap)!,
  rssMb: num('rss', values.rss)!,
};
const slowMs = num('slow', values.slow)! * 1000;
const ocr = values.ocr === 'off' ? 'off' : 'auto';

function describeFinding(f: SeenFinding): string {
  return `${f.hard ? 'FINDING' : 'note'} ${f.kind} ${f.target} (case ${f.index}, from ${f.origin}): ${f.summary}${f.path ? `\n    replay: npm run fuzz -- --replay ${f.path}` : ''}`;
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function progress(r: FuzzReport): void {
  const hard = r.findings.filter((f) => f.hard).length;
  console.log(`[${clock(r.elapsedMs)}] ${r.cases} inputs, ${(r.cases / (r.elapsedMs / 1000)).toFixed(1)} files/s, ${(r.bytes / 1048576 / (r.elapsedMs / 1000)).toFixed(2)} MB/s; findings: ${hard} distinct, ${r.findings.length - hard} notes; peak RSS ${r.peakRssMb.toFixed(0)} MB`);
}

function summary(r: FuzzReport): void {
  const secs = r.elapsedMs / 1000;
  console.log(`\nseed ${r.seed}: ${r.cases} inputs in ${secs.toFixed(1)} s = ${(r.cases / secs).toFixed(1)} files/s (${(r.bytes / 1048576).toFixed(1)} MB), peak RSS ${r.peakRssMb.toFixed(0)} MB\n`);
  console.log('| target | inputs | files/s (one worker) | ok | rejected (by code) | findings |');
  console.log('| --- | ---: | ---: | ---: | --- | ---: |');
  for (const [id, t] of r.targets) {
    if (t.cases === 0) continue;
    const codes = Object.entries(t.rejected).sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ${n}`).join(', ');
    console.log(`| ${id} | ${t.cases} | ${(t.cases / (t.ms / 1000)).toFixed(1)} | ${t.ok} | ${codes} | ${t.findings} |`);
  }
  const hard = r.findings.filter((f) => f.hard);
  const soft = r.findings.filter((f) => !f.hard);
  console.log(`\n${hard.length} distinct finding(s), ${soft.length} note(s) (internal errors surfaced as CORRUPT, slow inputs)`);
  for (const f of [...hard, ...soft]) console.log(`- x${f.count} ${describeFinding(f)}`);
}

async function replay(path: string): Promise<number> {
  const { repro, case: c } = loadReproducer(path);
  console.log(`replaying ${path}: ${repro.kind} ${repro.target} (seed ${repro.seed}, case ${repro.index}, from ${repro.origin})\n  recorded: ${repro.summary}\n  steps: ${repro.steps.join('; ')}`);
  const { run, finding } = await runOne(c, { ...pool, slowMs });
  console.log(`  now (${(run.ms / 1000).toFixed(2)} s): ${JSON.stringify(run.outcome).slice(0, 1500)}`);
  if (finding) {
    console.log(`  still a ${HARD_KINDS.has(finding.kind) ? 'finding' : 'note'}: ${finding.kind}: ${finding.summary}`);
    return HARD_KINDS.has(finding.kind) ? 1 : 0;
  }
  console.log('  fixed: the contract holds');
  return 0;
}

async function main(): Promise<number> {
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.replay) return replay(resolve(values.replay));
  const seed = values.seed !== undefined ? num('seed', values.seed)! >>> 0 : (Date.now() ^ (process.pid << 16)) >>> 0;
  const only = values.format?.split(',').map((s) => s.trim()).filter(Boolean);
  const schedule = {
    seed,
    ...(only && { only }),
    ...(values['max-seed-bytes'] !== undefined && { maxSeedBytes: num('max-seed-bytes', values['max-seed-bytes'])! }),
    maxChars: num('max-chars', values['max-chars'])!,
    ocr,
  } as const;
  if (values.list) {
    const s = new Schedule(schedule);
    for (const t of s.targets) console.log(`${t.id}${t.kind === 'parse' ? ` (${s.seedCount(t.name)} seed files)` : ''}`);
    return 0;
  }
  const single = num('case', values.case);
  const cases = single !== undefined ? 1 : num('cases', values.cases);
  const minutes = num('minutes', values.minutes)!;
  console.log(`fuzz: seed ${seed}, ${single !== undefined ? `case ${single}` : cases !== undefined ? `${cases} inputs` : `${minutes} minute(s)`}, ${pool.workers} worker(s), timeout ${pool.timeoutMs / 1000} s, heap ${pool.heapMb} MB, RSS ${pool.rssMb} MB; reproducers in ${values.out}/`);
  const report = await runFuzz({
    ...schedule,
    ...pool,
    slowMs,
    outDir: values.out,
    ...(single !== undefined ? { startIndex: single, cases: 1 } : cases !== undefined ? { cases } : { durationMs: minutes * 60_000 }),
    onProgress: progress,
    onFinding: (f) => console.log(describeFinding(f)),
  });
  summary(report);
  return report.findings.some((f) => f.hard) ? 1 : 0;
}

process.exitCode = await main();
