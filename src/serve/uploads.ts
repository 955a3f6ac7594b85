import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

export interface UploadLimits {
  /** Largest file, bytes (413 past it). */
  maxFileBytes: number;
  /** Files per request (413 past it). */
  maxFiles: number;
}

export interface UploadedFile {
  /** The client's name (display only). */
  name: string;
  /** Relative to the library folder. */
  path: string;
  bytes: number;
  sha256: string;
  mimetype: string;
}

export interface Upload {
  files: UploadedFile[];
  fields: Record<string, string>;
}

const EXTENSION = /\.([A-Za-z0-9]{1,10})$/;

/**
 * The extension of a client's file name, lower-cased, when it is plain letters and digits (it
 * helps detection of text formats); the file's name on disk is generated, so nothing the client
 * sends ever becomes a path.
 */
export function safeExtension(name: string): string {
  const match = EXTENSION.exec(name.trim());
  return match ? `.${match[1]!.toLowerCase()}` : '';
}

/**
 * Streams the `file` parts of a multipart request to `uploads/` inside the library (hashing as
 * they pass; never held in memory), under generated names; other parts are form fields. A file
 * over the limit, too many files, or a broken request deletes what was written and throws.
 */
export async function receiveUpload(request: FastifyRequest, libraryDir: string, limits: UploadLimits): Promise<Upload> {
  if (!request.isMultipart()) throw new HttpError('UNSUPPORTED', 'send the file as multipart/form-data with a part named "file"');
  const dir = join(libraryDir, 'uploads');
  await mkdir(dir, { recursive: true });
  const files: UploadedFile[] = [];
  const fields: Record<string, string> = {};
  const written: string[] = [];
  try {
    const parts = request.parts({ limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 20, fieldSize: 1024 * 1024, parts: limits.maxFiles + 20 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw new HttpError('INVALID_OPTIONS', `unexpected file part "${part.fieldname}": files go in parts named "file"`);
      }
      const name = `${randomUUID()}${safeExtension(part.filename ?? '')}`;
      const target = join(dir, name);
      const partial = `${target}.part`;
      written.push(partial, target);
      const hash = createHash('sha256');
      let bytes = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(part.file, tap, createWriteStream(partial, { flags: 'wx' }));
      if (part.file.truncated) {
        throw new HttpError('TOO_LARGE', `${part.filename}: larger than the upload limit of ${limits.maxFileBytes} bytes`, {
          limit: { name: 'maxUploadBytes', value: limits.maxFileBytes, flag: '--max-upload-mb' },
        });
      }
      await rename(partial, target);
      files.push({ name: displayName(part.filename), path: join('uploads', name), bytes, sha256: hash.digest('hex'), mimetype: part.mimetype });
    }
  } catch (error) {
    await Promise.all(written.map((p) => rm(p, { force: true })));
    throw uploadError(error, limits);
  }
  if (files.length === 0) throw new HttpError('INVALID_OPTIONS', 'no file: send the document in a multipart part named "file"');
  return { files, fields };
}

/** The client's name as shown back: its last segment, control characters dropped, at most 255 chars. */
function displayName(name: string | undefined): string {
  const last = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
  return clean === '' ? 'upload' : clean;
}

/** Busboy's and multipart's limit errors as ours (413 naming the limit). */
function uploadError(error: unknown, limits: UploadLimits): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new HttpError('TOO_LARGE', `a file is larger than the upload limit of ${limits.maxFileBytes} bytes`, {
      limit: { name: 'maxUploadBytes', value: limits.maxFileBytes, flag: '--max-upload-mb' },
    });
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new HttpError('TOO_LARGE', `more than ${limits.maxFiles} files in one request`, { limit: { name: 'maxUploadFiles', value: limits.maxFiles, flag: '--max-upload-files' } });
  }
  return error;
}
