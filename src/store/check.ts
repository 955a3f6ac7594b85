import { z } from 'zod';
import { GroundworkError } from '../errors.js';

/**
 * A library check: what `LibraryStore.check` and `Library.check` take and return. Each store
 * checks its own data (SQLite: the file's integrity, the index against the blocks, orphans); the
 * Library adds what is its own (the kept originals under files/, the settings it reads).
 */
export const CheckOptionsSchema = z.strictObject({
  repair: z.boolean().default(false).describe('rebuild what can be rebuilt (the search index and its statistics from the blocks), remove orphans and leftovers, restore or clear missing originals; then check again'),
  full: z
    .boolean()
    .default(false)
    .describe("also SQLite's full integrity_check (instead of quick_check), FTS5's own index check, and every block re-analysed against the index and its statistics (instead of a sample)"),
});

export type CheckOptions = z.input<typeof CheckOptionsSchema>;
export type ResolvedCheckOptions = z.output<typeof CheckOptionsSchema>;

/** Validates check options (INVALID_OPTIONS naming the field). */
export function resolveCheckOptions(options: unknown = {}): ResolvedCheckOptions {
  const parsed = CheckOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(options)'}: ${issue.message}`);
    throw new GroundworkError('INVALID_OPTIONS', `invalid check options: ${issues.join('; ')}`);
  }
  return parsed.data;
}

/**
 * `error`: the library gives wrong or incomplete answers (a block missing from the index, a term
 * count off, an original that is not what was ingested). `leftover`: only wasted space (a copy no
 * document refers to, a temporary file of a process that died); it does not fail the check.
 */
export type CheckSeverity = 'error' | 'leftover';

/** One kind of problem found. */
export interface CheckFinding {
  /** Which check found it, a stable name (e.g. `index-rows`, `term-df`, `original-missing`). */
  check: string;
  severity: CheckSeverity;
  /** One sentence saying what is wrong. */
  message: string;
  /** How many rows, terms, documents or files. */
  count: number;
  /** A few of them (ids, terms, paths), at most MAX_EXAMPLES. */
  examples: string[];
  /** Whether `repair` can fix it. */
  repairable: boolean;
}

/** What was checked and how thoroughly. */
export interface CheckScope {
  check: string;
  /** What the check compares, in a few words. */
  what: string;
  /** `full`: every row / file; `sampled`: `items` of them chosen at random. */
  scope: 'full' | 'sampled';
  /** Rows, terms, blocks or files looked at. */
  items: number;
}

/** One thing `repair` did. */
export interface CheckRepair {
  check: string;
  /** What was done, e.g. "rebuilt the search index from 1,204 blocks". */
  action: string;
  count: number;
}

export interface CheckReport {
  /** No error remains (leftovers do not count). */
  ok: boolean;
  repair: boolean;
  full: boolean;
  checked: CheckScope[];
  /** What the first pass found. */
  found: CheckFinding[];
  /** What repair did (empty without `repair`). */
  repairs: CheckRepair[];
  /** What a second pass after the repairs still finds; `found` when nothing was repaired. */
  remaining: CheckFinding[];
  durationMs: number;
}

export const MAX_EXAMPLES = 5;

/**
 * A kept original no document keeps, younger than this, is left by repair: an ingest puts the
 * original in place before it commits the document, and may wait for the write lock (10 minutes
 * by default) in between.
 */
export const FRESH_UNREFERENCED_MS = 3600 * 1000;

export function finding(check: string, severity: CheckSeverity, message: string, count: number, examples: readonly string[], repairable = true): CheckFinding {
  return { check, severity, message, count, examples: examples.slice(0, MAX_EXAMPLES), repairable };
}

/** One report from several parts' (the store's, the Library's), in order. */
export function mergeReports(options: ResolvedCheckOptions, parts: readonly Omit<CheckReport, 'ok' | 'repair' | 'full'>[]): CheckReport {
  const remaining = parts.flatMap((p) => p.remaining);
  return {
    ok: remaining.every((f) => f.severity !== 'error'),
    repair: options.repair,
    full: options.full,
    checked: parts.flatMap((p) => p.checked),
    found: parts.flatMap((p) => p.found),
    repairs: parts.flatMap((p) => p.repairs),
    remaining,
    durationMs: parts.reduce((s, p) => s + p.durationMs, 0),
  };
}
