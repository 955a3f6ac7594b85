import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { GroundworkError } from '../../errors.js';
import type { ToolContext } from '../context.js';
import { defineTool } from './tool.js';

const UploadSchema = z.object({
  name: z.string().trim().min(1).max(255).describe('the file name, with its extension (it helps detect the format)'),
  contentBase64: z.string().min(1).describe('the file\'s bytes, base64-encoded'),
}).strict();

export const IngestInput = z.object({
  paths: z.array(z.string().trim().min(1)).min(1).max(1000).optional()
    .describe('files or folders on the server\'s machine, inside the folders the server allows (relative paths are taken from the first of them)'),
  files: z.array(UploadSchema).min(1).max(100).optional()
    .describe('files sent as bytes; kept under the library\'s uploads/ folder'),
  strategy: z.string().trim().min(1).optional().describe('chunking strategy (default: the library\'s)'),
}).strict().refine((v) => v.paths !== undefined || v.files !== undefined, { message: 'give paths, files or both', path: ['paths'] });

const Rejected = z.object({ path: z.string(), code: z.string(), reason: z.string() });

export const IngestOutput = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int().describe('unchanged files and duplicates of stored content'),
  blocks: z.number().int().describe('blocks written'),
  rejected: z.array(Rejected).describe('files that could not be read, with the code and the reason'),
  documents: z.array(z.object({ path: z.string(), docId: z.string() })).describe('the documents of the files named or uploaded (folders: see list_documents)'),
});

export const ingestTool = defineTool({
  name: 'ingest',
  title: 'Add documents',
  readOnly: false,
  idempotent: true,
  description: (ctx) => `Add documents to the library (parse, chunk, index): files or folders on the server's machine inside ${ctx.ingestRoots.join(', ')}, or files sent as base64 bytes (at most ${ctx.options.maxUploadBytes} bytes each). Unchanged files are skipped. Returns what was added and what was rejected, with the reason.`,
  input: IngestInput,
  output: IngestOutput,
  enabled: (ctx) => ctx.ingestRoots.length > 0 && ctx.options.access === 'read-write',
  async run(args, ctx) {
    const paths = (args.paths ?? []).map((p) => confined(p, ctx.ingestRoots));
    for (const file of args.files ?? []) paths.push(await storeUpload(ctx, file));
    const report = await ctx.library.addFiles(paths, { ...(args.strategy !== undefined && { strategy: args.strategy }) });
    const documents: { path: string; docId: string }[] = [];
    for (const path of paths) {
      const doc = await ctx.library.document(path);
      if (doc) documents.push({ path, docId: doc.id });
    }
    const structured = {
      added: report.docsAdded, updated: report.docsUpdated, skipped: report.docsSkipped, blocks: report.blocksAdded,
      rejected: report.rejected.map((r) => ({ path: r.path, code: r.code, reason: r.reason })), documents,
    };
    const lines = [`Added ${structured.added}, updated ${structured.updated}, skipped ${structured.skipped} document(s); ${structured.blocks} blocks written.`];
    for (const d of documents) lines.push(`- ${d.path} [${d.docId.slice(0, 12)}]`);
    for (const r of structured.rejected) lines.push(`rejected: ${r.reason} [${r.code}]`);
    return { structured, text: `${lines.join('\n')}\n` };
  },
});

/**
 * The real path of `path` when it lies inside one of `roots` (symlinks resolved, so a link cannot
 * lead out); else INVALID_OPTIONS. Folder walks skip symlinks, so what a folder holds stays inside.
 */
export function confined(path: string, roots: readonly string[]): string {
  const abs = isAbsolute(path) ? path : resolve(roots[0]!, path);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (cause) {
    throw new GroundworkError('IO', 'cannot ingest: no such file or folder', { file: path, cause });
  }
  const inside = roots.some((root) => {
    const rel = relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
  if (!inside) throw new GroundworkError('INVALID_OPTIONS', `cannot ingest: outside the folders this server may read (${roots.join(', ')})`, { file: path });
  return real;
}

/** Writes uploaded bytes to uploads/<hash>/<name> inside the library (temp name, then rename). */
async function storeUpload(ctx: ToolContext, file: z.output<typeof UploadSchema>): Promise<string> {
  const max = ctx.options.maxUploadBytes;
  // Four base64 characters carry three bytes: refuse before decoding what cannot fit.
  if (Math.floor((file.contentBase64.length * 3) / 4) - 2 > max) {
    throw new GroundworkError('TOO_LARGE', `upload is larger than ${max} bytes`, { file: file.name, limit: { name: 'maxUploadBytes', value: max, flag: '--max-upload-bytes' } });
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.contentBase64.replace(/\s+/g, ''))) {
    throw new GroundworkError('INVALID_OPTIONS', 'contentBase64 is not base64', { file: file.name });
  }
  const bytes = Buffer.from(file.contentBase64, 'base64');
  if (bytes.length > max) throw new GroundworkError('TOO_LARGE', `upload is ${bytes.length} bytes, more than ${max}`, { file: file.name, limit: { name: 'maxUploadBytes', value: max, flag: '--max-upload-bytes' } });
  const name = safeName(file.name);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const dir = join(ctx.library.dir, 'uploads', hash.slice(0, 16));
  await mkdir(dir, { recursive: true });
  const target = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(tmp, bytes);
  await rename(tmp, target);
  return target;
}

/** A file name that stays one name inside its folder: no separators, no control characters, not hidden. */
function safeName(name: string): string {
  const base = basename(name.replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f/]/g, '_').replace(/^\.+/, '_');
  return base === '' ? 'upload' : base;
}
