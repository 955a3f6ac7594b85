import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GroundworkError } from '../errors.js';
import { HttpError } from './errors.js';
import type { Scope } from './route.js';

/**
 * API keys. A key is a random token the server never stores: the keys file (or the environment)
 * holds its SHA-256 and scope, one key a line: `NAME SCOPE sha256:HEX` (`#` starts a comment).
 * `read-only` keys may call every GET route and search; `read-write` keys may also upload, delete
 * and cancel. A presented key is hashed and compared in constant time with every stored hash.
 */
export const KEY_SCOPES = ['read-only', 'read-write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface ApiKey {
  name: string;
  scope: KeyScope;
  /** SHA-256 of the key, 32 bytes. */
  hash: Buffer;
}

/** Who made a request: a key's name and scope, or the loopback user when no keys are set. */
export interface Caller {
  name: string;
  scope: KeyScope;
  /** False for the keyless loopback caller. */
  keyed: boolean;
}

const LINE = /^(\S+)\s+(read-only|read-write)\s+sha256:([0-9a-f]{64})$/;

/** Parses keys-file text; a bad line is INVALID_OPTIONS naming its number (never echoing it). */
export function parseKeys(text: string, source: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const lines = text.split(/\r?\n|;/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const match = LINE.exec(line);
    if (!match) {
      throw new GroundworkError('INVALID_OPTIONS', `entry ${i + 1} is not 'NAME read-only|read-write sha256:HEX' (make one with: groundwork serve --new-key NAME)`, { file: source });
    }
    keys.push({ name: match[1]!, scope: match[2] as KeyScope, hash: Buffer.from(match[3]!, 'hex') });
  });
  return keys;
}

/** Keys from a file and/or `GROUNDWORK_API_KEYS` (same lines, `;` may separate them). */
export function loadKeys(options: { file?: string; env?: string }): ApiKey[] {
  const keys: ApiKey[] = [];
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (cause) {
      throw new GroundworkError('IO', `cannot read the keys file: ${(cause as Error).message}`, { file: options.file, cause });
    }
    keys.push(...parseKeys(text, options.file));
  }
  if (options.env !== undefined && options.env.trim() !== '') keys.push(...parseKeys(options.env, 'GROUNDWORK_API_KEYS'));
  return keys;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A new key and its keys-file line (the key is shown once; only the line is kept). */
export function newKey(name: string, scope: KeyScope): { key: string; line: string } {
  if (!/^\S+$/.test(name)) throw new GroundworkError('INVALID_OPTIONS', `a key name has no spaces, got ${JSON.stringify(name)}`);
  const key = `gw_${randomBytes(32).toString('base64url')}`;
  return { key, line: `${name} ${scope} sha256:${hashKey(key).toString('hex')}` };
}

/** The key a request presents: `Authorization: Bearer KEY`. */
export function presentedKey(header: string | undefined): { key?: string; malformed: boolean } {
  if (header === undefined || header === '') return { malformed: false };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? { key: match[1]!, malformed: false } : { malformed: true };
}

/** The stored key matching `key`, compared in constant time with each (no early exit). */
export function findKey(keys: readonly ApiKey[], key: string): ApiKey | undefined {
  const hash = hashKey(key);
  let found: ApiKey | undefined;
  for (const candidate of keys) {
    if (timingSafeEqual(candidate.hash, hash) && !found) found = candidate;
  }
  return found;
}

/**
 * Decides who calls and whether they may: with no keys configured (allowed on loopback only),
 * everyone is the read-write loopback caller.
 */
export function authorize(keys: readonly ApiKey[], header: string | undefined, scope: Scope): Caller | undefined {
  if (scope === 'none') return undefined;
  if (keys.length === 0) return { name: 'loopback', scope: 'read-write', keyed: false };
  const { key, malformed } = presentedKey(header);
  if (malformed) throw new HttpError('UNAUTHORIZED', "the Authorization header must be 'Bearer <key>'", { auth: 'malformed' });
  if (key === undefined) throw new HttpError('UNAUTHORIZED', "an API key is required: send 'Authorization: Bearer <key>'", { auth: 'missing' });
  const found = findKey(keys, key);
  if (!found) throw new HttpError('UNAUTHORIZED', 'unknown API key', { auth: 'unknown' });
  if (scope === 'write' && found.scope !== 'read-write') throw new HttpError('FORBIDDEN', `the key '${found.name}' is read-only; this route needs a read-write key`, { auth: 'scope' });
  return { name: found.name, scope: found.scope, keyed: true };
}

/** Loopback hosts: the only ones a server may listen on without keys. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}
