/**
 * What counts as a finding, and reproducers. The contract: no crash (anything but a GroundworkError
 * coming out), no hang, no blow-up, every failure a GroundworkError with a code that tells the
 * truth (CORRUPT for bytes that are not a valid file, LIMIT_EXCEEDED for a limit: a stack overflow
 * or failed allocation reported as CORRUPT is a wrong code), and the document and chunk invariants
 * on success. Softer findings are kept too: a CORRUPT whose cause is an internal JavaScript error
 * (a missing bounds check the user sees as "Cannot read properties of undefined"), and inputs much
 * slower than the rest (a superlinear path, for the `linear` helper).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Case } from './cases.js';
import type { RunOutcome, RunResult } from './pool.js';

export type FindingKind = 'crash' | 'hang' | 'memory' | 'invariant' | 'wrong-code' | 'internal' | 'slow';

/** Kinds that break the contract; the bounded run in `npm test` fails on them. */
export const HARD_KINDS: ReadonlySet<FindingKind> = new Set(['crash', 'hang', 'memory', 'invariant', 'wrong-code']);

export interface Finding {
  kind: FindingKind;
  /** One line: what happened. */
  summary: string;
  /** Same signature = same bug (kind, target, stage, the message with numbers and names blanked). */
  signature: string;
}

/** Codes a parse may end with on damaged input; anything else (IO, INVALID_OPTIONS...) is a wrong code. */
const PARSE_CODES = new Set(['CORRUPT', 'EMPTY', 'UNSUPPORTED', 'ENCRYPTED', 'TOO_LARGE', 'LIMIT_EXCEEDED', 'TIMEOUT']);
/** A valid document or string may only be refused by chunking for a limit. */
const CHUNK_CODES = new Set(['LIMIT_EXCEEDED']);
const LIMIT_CAUSE = /Maximum call stack size exceeded|Invalid (array|string|typed array) length|Array buffer allocation failed|allocation failed|out of memory|too many (properties|arguments)/i;
const INTERNAL_CAUSES = new Set(['TypeError', 'ReferenceError', 'RangeError', 'AssertionError']);

/** The message with the parts that differ between inputs of one bug blanked (numbers, quoted text, paths). */
export function normalise(message: string): string {
  return message
    .replace(/^[^:\n]*(\.[A-Za-z0-9]{1,5}|<bytes>|input(\.\w+)?)(#[^:]*)?: /, '')
    .replace(/'[^']{0,80}'|"[^"]{0,80}"|`[^`]{0,80}`/g, 'Q')
    .replace(/0x[0-9a-f]+|\d+(\.\d+)?/gi, 'N')
    .slice(0, 160);
}

/** The first stack frame in Groundwork's own code (file and function, no line numbers). */
function ownFrame(stack: string | undefined): string {
  const line = stack?.split('\n').find((l) => l.includes('/src/'));
  if (!line) return '';
  const m = /at (?:(\S+) \()?.*?(src\/[^:)]+)/.exec(line);
  return m ? `${m[1] ?? '<anonymous>'}@${m[2]}` : '';
}

export function classify(c: Case, run: RunResult, slowMs: number): Finding | undefined {
  const o: RunOutcome = run.outcome;
  const sig = (kind: FindingKind, ...parts: string[]) => [kind, c.target, ...parts].join('|');
  switch (o.status) {
    case 'timeout':
      return { kind: 'hang', summary: `no answer within ${o.limitMs} ms`, signature: sig('hang', c.task.kind === 'parse' ? c.origin : '') };
    case 'memory':
      return { kind: 'memory', summary: o.detail, signature: sig('memory', c.task.kind === 'parse' ? c.origin : '') };
    case 'died':
      return { kind: 'crash', summary: `the worker died: ${o.detail}`, signature: sig('crash', 'died', normalise(o.detail)) };
    case 'thrown':
      return {
        kind: 'crash',
        summary: `${o.stage}: ${o.error.name} (not a GroundworkError): ${o.error.message.slice(0, 300)}`,
        signature: sig('crash', o.stage, o.error.name, normalise(o.error.message), ownFrame(o.error.stack)),
      };
    case 'ok':
      if (o.violations.length) return { kind: 'invariant', summary: `${o.summary}; ${o.violations.join('; ')}`.slice(0, 600), signature: sig('invariant', normalise(o.violations[0]!.replace(/^.*?: /, ''))) };
      break;
    case 'rejected': {
      const allowed = c.task.kind === 'parse' && o.stage === 'parse' ? PARSE_CODES : CHUNK_CODES;
      const cause = o.cause ? `${o.cause.name}: ${o.cause.message}` : '';
      if (!allowed.has(o.code)) {
        return { kind: 'wrong-code', summary: `${o.stage}: ${o.code} is not an answer to ${c.task.kind === 'parse' ? 'a damaged file' : 'a valid input'}: ${o.message.slice(0, 300)}`, signature: sig('wrong-code', o.stage, o.code, normalise(o.message)) };
      }
      if (o.stage === 'parse' && !o.hasFile) return { kind: 'wrong-code', summary: `${o.code} names no file: ${o.message.slice(0, 300)}`, signature: sig('wrong-code', 'no-file', o.code) };
      if (o.code === 'CORRUPT' && o.cause && LIMIT_CAUSE.test(o.cause.message)) {
        return {
          kind: 'wrong-code',
          summary: `a limit reported as CORRUPT (should be LIMIT_EXCEEDED): ${cause.slice(0, 300)}`,
          signature: sig('wrong-code', 'limit-as-corrupt', normalise(o.cause.message), ownFrame(o.cause.stack)),
        };
      }
      if (o.code === 'CORRUPT' && o.cause && INTERNAL_CAUSES.has(o.cause.name)) {
        return {
          kind: 'internal',
          summary: `CORRUPT from an internal ${o.cause.name}, not a reason a user can act on: ${o.message.slice(0, 300)}`,
          signature: sig('internal', o.cause.name, normalise(o.cause.message), ownFrame(o.cause.stack)),
        };
      }
      break;
    }
  }
  if (run.ms > slowMs) return { kind: 'slow', summary: `took ${(run.ms / 1000).toFixed(1)} s (${o.status === 'ok' ? o.summary : o.code})`, signature: sig('slow', c.task.kind === 'parse' ? c.origin : '') };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reproducers

export interface Reproducer {
  kind: FindingKind;
  summary: string;
  signature: string;
  /** The run's seed and the case's index: `npm run fuzz -- --seed S --case I` regenerates it. */
  seed: number;
  index: number;
  target: string;
  origin: string;
  steps: string[];
  /** Parse inputs: the file beside this JSON holding the bytes, and the parse settings. */
  input?: string;
  name?: string;
  strategy?: string;
  ocr?: 'auto' | 'off';
  /** Chunker inputs: the text and the strategy spec / size. */
  text?: string;
  spec?: string;
  size?: number;
  outcome: RunOutcome;
  ms: number;
  stderr?: string;
  commit?: string;
  replay: string;
}

const EXT = /\.([A-Za-z0-9]{1,5})$/;

/** Writes `<dir>/<kind>-<target>-<hash>.json` (+ the input bytes beside it) and returns the JSON's path. */
export function saveReproducer(dir: string, seed: number, c: Case, run: RunResult, finding: Finding, commit?: string): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256').update(finding.signature).update(String(c.index)).digest('hex').slice(0, 10);
  const base = `${finding.kind}-${c.target.replace(/[^a-z0-9]+/gi, '_')}-${hash}`;
  const json = join(dir, `${base}.json`);
  const shown = relative(process.cwd(), json) || json;
  const repro: Reproducer = {
    kind: finding.kind,
    summary: finding.summary,
    signature: finding.signature,
    seed,
    index: c.index,
    target: c.target,
    origin: c.origin,
    steps: c.steps,
    outcome: run.outcome,
    ms: Math.round(run.ms),
    ...(run.stderr && { stderr: run.stderr }),
    ...(commit && { commit }),
    replay: `npm run fuzz -- --replay ${shown}`,
  };
  if (c.task.kind === 'parse') {
    const ext = EXT.exec(c.task.name)?.[1] ?? 'bin';
    const input = `${base}.${ext}`;
    writeFileSync(join(dir, input), c.task.bytes);
    Object.assign(repro, { input, name: c.task.name, strategy: c.task.strategy, ocr: c.task.ocr });
  } else {
    Object.assign(repro, { text: c.task.text, spec: c.task.spec, size: c.task.size });
  }
  writeFileSync(json, `${JSON.stringify(repro, null, 2)}\n`);
  return json;
}

/** The case a reproducer holds (its bytes read back from the file beside it). */
export function loadReproducer(path: string): { repro: Reproducer; case: Case } {
  const repro = JSON.parse(readFileSync(path, 'utf8')) as Reproducer;
  const base = { index: repro.index, target: repro.target, origin: repro.origin, steps: repro.steps };
  if (repro.input !== undefined) {
    const file = resolve(dirname(path), repro.input);
    if (!existsSync(file)) throw new Error(`${path}: its input ${file} is missing`);
    return { repro, case: { ...base, task: { kind: 'parse', name: repro.name!, bytes: new Uint8Array(readFileSync(file)), strategy: repro.strategy!, ocr: repro.ocr ?? 'auto' } } };
  }
  return { repro, case: { ...base, task: { kind: 'chunk', text: repro.text!, spec: repro.spec!, size: repro.size! } } };
}
