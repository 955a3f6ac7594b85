/**
 * A fuzz run: cases from the schedule, through the watched pool, classified; findings counted by
 * signature and (with `outDir`) saved as reproducers, a few per signature. Used by `npm run fuzz`
 * (main.ts) and by the bounded run in `npm test` (fuzz.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { Schedule, type Case, type ScheduleOptions } from './cases.js';
import { classify, HARD_KINDS, saveReproducer, type Finding } from './findings.js';
import { FuzzPool, type PoolOptions, type RunResult } from './pool.js';

export interface FuzzOptions extends ScheduleOptions, PoolOptions {
  /** Stop after this many cases... */
  cases?: number;
  /** ...or after this long (whichever comes first; at least one must be set). */
  durationMs?: number;
  /** First case index (a run can be resumed or one case replayed by index). */
  startIndex?: number;
  /** A task slower than this is a `slow` finding (when it is nothing worse). */
  slowMs: number;
  /** Where reproducers go; none are written without it. */
  outDir?: string;
  /** Reproducers kept per signature. */
  maxPerSignature?: number;
  onProgress?: (report: FuzzReport) => void;
  onFinding?: (finding: SeenFinding) => void;
  progressEveryMs?: number;
}

export interface TargetStats {
  cases: number;
  ok: number;
  /** Rejections by code (`CORRUPT`, `EMPTY`...). */
  rejected: Record<string, number>;
  findings: number;
  bytes: number;
  ms: number;
}

export interface SeenFinding extends Finding {
  target: string;
  index: number;
  origin: string;
  steps: string[];
  /** Inputs with this signature so far. */
  count: number;
  /** Reproducer JSON of the first one (when saved). */
  path?: string;
  hard: boolean;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  bytes: number;
  elapsedMs: number;
  targets: Map<string, TargetStats>;
  /** Distinct findings, by signature, first seen first. */
  findings: SeenFinding[];
  peakRssMb: number;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function sizeOf(c: Case): number {
  return c.task.kind === 'parse' ? c.task.bytes.length : c.task.text.length;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  if (options.cases === undefined && options.durationMs === undefined) throw new Error('runFuzz: give cases or durationMs');
  const schedule = new Schedule(options);
  const pool = new FuzzPool(options);
  const commit = options.outDir ? gitCommit() : undefined;
  const report: FuzzReport = { seed: options.seed, cases: 0, bytes: 0, elapsedMs: 0, targets: new Map(), findings: [], peakRssMb: 0 };
  for (const t of schedule.targets) report.targets.set(t.id, { cases: 0, ok: 0, rejected: {}, findings: 0, bytes: 0, ms: 0 });
  const bySignature = new Map<string, SeenFinding>();
  const saved = new Map<string, number>();
  const t0 = performance.now();
  const deadline = options.durationMs === undefined ? Infinity : t0 + options.durationMs;
  const end = options.cases === undefined ? Infinity : (options.startIndex ?? 0) + options.cases;
  let next = options.startIndex ?? 0;
  let lastProgress = t0;

  const record = (c: Case, run: RunResult) => {
    const stats = report.targets.get(c.target)!;
    stats.cases++;
    stats.bytes += sizeOf(c);
    stats.ms += run.ms;
    report.cases++;
    report.bytes += sizeOf(c);
    const o = run.outcome;
    if (o.status === 'ok') stats.ok++;
    else if (o.status === 'rejected') stats.rejected[o.code] = (stats.rejected[o.code] ?? 0) + 1;
    const finding = classify(c, run, options.slowMs);
    if (!finding) return;
    stats.findings++;
    let seen = bySignature.get(finding.signature);
    if (!seen) {
      seen = { ...finding, target: c.target, index: c.index, origin: c.origin, steps: c.steps, count: 0, hard: HARD_KINDS.has(finding.kind) };
      bySignature.set(finding.signature, seen);
      report.findings.push(seen);
    }
    seen.count++;
    const kept = saved.get(finding.signature) ?? 0;
    if (options.outDir && kept < (options.maxPerSignature ?? 2)) {
      const path = saveReproducer(options.outDir, options.seed, c, run, finding, commit);
      saved.set(finding.signature, kept + 1);
      seen.path ??= path;
    }
    if (seen.count === 1) options.onFinding?.(seen);
  };

  const inFlight = new Set<Promise<void>>();
  try {
    while (next < end && performance.now() < deadline) {
      const c = schedule.case(next++);
      const p: Promise<void> = pool.run(c.task).then((run) => {
        record(c, run);
        inFlight.delete(p);
      });
      inFlight.add(p);
      // Keep each worker busy with one task, plus one generated ahead.
      while (inFlight.size > options.workers) await Promise.race(inFlight);
      if (pool.fatal) throw pool.fatal;
      const now = performance.now();
      if (options.onProgress && now - lastProgress >= (options.progressEveryMs ?? 10_000)) {
        lastProgress = now;
        report.elapsedMs = now - t0;
        report.peakRssMb = pool.peakRssMb;
        options.onProgress(report);
      }
    }
    await Promise.all(inFlight);
    if (pool.fatal) throw pool.fatal;
  } finally {
    report.elapsedMs = performance.now() - t0;
    report.peakRssMb = pool.peakRssMb;
    await pool.close();
  }
  return report;
}

/** Runs one case (a reproducer's) in a fresh watched worker and classifies it again. */
export async function runOne(c: Case, options: PoolOptions & { slowMs: number }): Promise<{ run: RunResult; finding: Finding | undefined }> {
  const pool = new FuzzPool({ ...options, workers: 1 });
  try {
    const run = await pool.run(c.task);
    if (pool.fatal) throw pool.fatal;
    return { run, finding: classify(c, run, options.slowMs) };
  } finally {
    await pool.close();
  }
}
