import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jobId, stableJson } from '../../src/queue/jobs.js';

/** Job ids: the same file, content and options (in any key order) is one job; an upload is another. */

const options = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 })), { maxKeys: 6 });
const hash = fc.stringMatching(/^[0-9a-f]{64}$/);

function shuffled(record: Record<string, unknown>, seed: number): Record<string, unknown> {
  const entries = Object.entries(record);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = (seed + i * 7) % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries);
}

describe('jobId', () => {
  test('equal for equal path, hash and options whatever their key order; a UUID', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), hash, options, fc.nat(), (path, h, o, seed) => {
      const a = jobId({ path, hash: h, options: o });
      expect(jobId({ path, hash: h, options: shuffled(o, seed) })).toBe(a);
      expect(stableJson(shuffled(o, seed))).toBe(stableJson(o));
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }));
  });

  test('an uploaded file is another job than the same file read from its path; the upload size does not matter', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), hash, options, fc.nat(), fc.nat(), (path, h, o, bytes, parts) => {
      const plain = jobId({ path, hash: h, options: o });
      const uploaded = jobId({ path, hash: h, options: o, upload: { bytes, parts } });
      expect(uploaded).not.toBe(plain);
      expect(jobId({ path, hash: h, options: o, upload: { bytes: bytes + 1, parts: 0 } })).toBe(uploaded);
      expect(jobId({ path, hash: h, options: o, upload: undefined })).toBe(plain);
    }));
  });
});
