import { basename } from 'node:path';
import type { IngestProgress } from '../library/library.js';
import { displayWidth, truncateToWidth } from './common.js';
import type { CliIO } from './io.js';

/** What a command may know about the terminal behind stdout and stderr (nothing, in tests). */
export interface Terminal {
  /** stderr is a terminal: progress may be drawn there. */
  errIsTTY: boolean;
  /** stdout is a terminal: highlights may be coloured. */
  outIsTTY: boolean;
  /** stderr's width in columns. */
  columns(): number;
  /** False when NO_COLOR is set (https://no-color.org). */
  color: boolean;
}

/** The real process's CliIO carries its terminal; a recorder in tests does not. */
export interface TerminalIO extends CliIO {
  terminal?: Terminal;
}

export function terminalOf(io: CliIO): Terminal | undefined {
  return (io as TerminalIO).terminal;
}

/** At most ~10 redraws a second: a terminal that redraws faster only burns CPU. */
const REDRAW_MS = 100;
const MIB = 1024 * 1024;
const BAR_WIDTH = 20;
const CLEAR_LINE = '\r\x1b[K';

/**
 * The ingest progress line on stderr: bar, files done/total, MB done/total, rate, ETA and the current
 * file name cut to the terminal width. Redrawn in place, throttled; `finish` erases it so the report
 * starts on a clean line.
 */
export class ProgressLine {
  private lastDraw = -Infinity;
  private drawn = false;
  private readonly started: number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly columns: () => number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  update(progress: IngestProgress): void {
    const at = this.now();
    const last = progress.filesDone >= progress.filesTotal;
    if (!last && at - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = at;
    this.drawn = true;
    this.write(CLEAR_LINE + renderProgress(progress, at - this.started, this.columns()));
  }

  finish(): void {
    if (this.drawn) this.write(CLEAR_LINE);
    this.drawn = false;
  }
}

/**
 * One progress line, at most `columns - 1` wide (writing the last column makes some terminals wrap):
 * `[#####-----] 12/40 files  3.2/10.5 MB  1.4 MB/s  ETA 0:05  report-2024.pdf`.
 */
export function renderProgress(p: IngestProgress, elapsedMs: number, columns: number): string {
  const fraction = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : p.filesTotal > 0 ? p.filesDone / p.filesTotal : 0;
  const filled = Math.min(BAR_WIDTH, Math.round(fraction * BAR_WIDTH));
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? p.bytesDone / MIB / seconds : 0;
  const remaining = (p.bytesTotal - p.bytesDone) / MIB;
  const eta = rate > 0 && p.bytesDone > 0 ? formatDuration(remaining / rate) : '--:--';
  const head = `${bar} ${p.filesDone}/${p.filesTotal} files  ${megabytes(p.bytesDone)}/${megabytes(p.bytesTotal)} MB  ${megabytes(rate * MIB)} MB/s  ETA ${eta}`;
  const room = columns - 1 - displayWidth(head) - 2;
  const name = p.path === '' ? '' : basename(p.path);
  if (room < 4 || name === '') return truncateToWidth(head, columns - 1);
  return `${head}  ${truncateToWidth(name, room)}`;
}

function megabytes(bytes: number): string {
  const mb = bytes / MIB;
  return mb >= 100 ? mb.toFixed(0) : mb >= 10 ? mb.toFixed(1) : mb.toFixed(2);
}

/** `75` -> `1:15`, `3725` -> `1:02:05`. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * Reports the one-time re-indexing of an older library's blocks on stderr: a notice when it starts
 * (so a long pause is explained, on a terminal or in a log), a redrawn count on a terminal, and
 * the end.
 */
export function indexRebuildReporter(io: CliIO, now: () => number = () => performance.now()): (done: number, total: number) => void {
  const tty = terminalOf(io)?.errIsTTY === true;
  const started = now();
  let lastDraw = -Infinity;
  return (done, total) => {
    if (done === 0) {
      io.err(`groundwork: upgrading this library's search index (${total.toLocaleString('en-US')} blocks, once)${tty ? '' : '\n'}`);
      lastDraw = now();
      return;
    }
    const at = now();
    if (done >= total) {
      io.err(`${tty ? CLEAR_LINE : ''}groundwork: search index upgraded (${total.toLocaleString('en-US')} blocks in ${formatDuration((at - started) / 1000)})\n`);
      return;
    }
    if (!tty || at - lastDraw < REDRAW_MS) return;
    lastDraw = at;
    io.err(`${CLEAR_LINE}groundwork: upgrading this library's search index: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} blocks`);
  };
}
