import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Library } from '../../src/library/library.js';
import { serve, type ServeHandle, type ServeOptions } from '../../src/serve/index.js';

export interface Running {
  library: Library;
  server: ServeHandle;
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** A real server on loopback (any free port) over a fresh library folder (or `dir`). */
export async function startServer(options: ServeOptions = {}, dir = mkdtempSync(join(tmpdir(), 'gw-serve-'))): Promise<Running> {
  const library = await Library.open(dir);
  const server = await serve(library, { port: 0, host: '127.0.0.1', workers: 1, ...options });
  return {
    library, server, url: server.url, dir,
    async stop() {
      await server.close();
      await library.close();
    },
  };
}

export function form(files: { name: string; bytes: Uint8Array | string }[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  for (const f of files) body.append('file', new Blob([typeof f.bytes === 'string' ? f.bytes : new Uint8Array(f.bytes)]), f.name);
  return body;
}

export function fileForm(path: string, fields: Record<string, string> = {}): FormData {
  return form([{ name: basename(path), bytes: readFileSync(path) }], fields);
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads a whole event stream (it ends after the job's last event). */
export async function readEvents(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  const events: SseEvent[] = [];
  for (const chunk of text.split('\n\n')) {
    const lines = chunk.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
    if (lines.length === 0) continue;
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    events.push({ event, data: JSON.parse(data) });
  }
  return events;
}

/** Follows a job over SSE to its end and returns the last event. */
export async function followJob(url: string, jobId: string, headers: Record<string, string> = {}): Promise<{ events: SseEvent[]; last: SseEvent }> {
  const response = await fetch(`${url}/v1/jobs/${jobId}/events`, { headers });
  if (response.status !== 200) throw new Error(`events: ${response.status} ${await response.text()}`);
  const events = await readEvents(response);
  return { events, last: events.at(-1)! };
}

export async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
