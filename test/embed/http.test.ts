import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBatches, runLimited } from '../../src/embed/batching.js';
import { backoffMs, displayUrl, endpointMessage, isRetryableStatus, redact, retryAfterMs } from '../../src/embed/http.js';
import { combineVectors, decodeVector } from '../../src/embed/vectors.js';

describe('Retry-After', () => {
  const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
  const h = (entries: Record<string, string>) => new Headers(entries);

  it('reads delta-seconds, HTTP-dates and retry-after-ms', () => {
    expect(retryAfterMs(h({ 'retry-after': '120' }), now)).toBe(120_000);
    expect(retryAfterMs(h({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(h({ 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(h({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(h({}), now)).toBeUndefined();
    expect(retryAfterMs(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
  });

  it('retries rate limits, time-outs and server faults, not client errors', () => {
    expect([408, 425, 429, 500, 502, 503, 504, 520].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422, 501, 505].some(isRetryableStatus)).toBe(false);
  });

  it('property: backoff doubles from the base, capped, jittered to 50-100 %', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 60_000 }), fc.double({ min: 0, max: 0.999, noNaN: true }), (attempt, base, max, r) => {
        const ceiling = Math.min(max, base * 2 ** (attempt - 1));
        const d = backoffMs(attempt, base, max, () => r);
        expect(d).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(d).toBeLessThanOrEqual(ceiling);
      }),
    );
  });
});

describe('messages', () => {
  it('finds the endpoint’s own message in each family’s error body', () => {
    expect(endpointMessage(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }))).toBe('Rate limit reached');
    expect(endpointMessage(JSON.stringify({ error: 'Input validation error', error_type: 'Validation' }))).toBe('Input validation error');
    expect(endpointMessage(JSON.stringify({ object: 'error', message: 'The model does not exist.', type: 'NotFoundError', code: 404 }))).toBe('The model does not exist.');
    expect(endpointMessage(JSON.stringify({ detail: [{ msg: 'field required' }, { msg: 'value is not a list' }] }))).toBe('field required; value is not a list');
    expect(endpointMessage('<html><body><h1>502 Bad Gateway</h1></body></html>')).toBe('502 Bad Gateway');
    expect(endpointMessage('')).toBeUndefined();
    expect(endpointMessage('x'.repeat(2000))!.length).toBe(501);
  });

  it('redacts secrets and shows URLs without credentials or query', () => {
    expect(redact('key sk-abc123 and sk-abc123 again', ['sk-abc123'])).toBe('key *** and *** again');
    expect(redact('short ab stays', ['ab'])).toBe('short ab stays');
    expect(displayUrl('https://u:p@host:8443/v1/embeddings?api-key=k#x')).toBe('https://host:8443/v1/embeddings');
  });
});

describe('batching', () => {
  it('property: batches cover every text once, in order, within both limits (a lone oversize text alone)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 300 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 4000 }), (tokens, maxTexts, maxTokens) => {
        const batches = planBatches(tokens, { maxTexts, maxTokens });
        let next = 0;
        for (const b of batches) {
          expect(b.start).toBe(next);
          expect(b.end).toBeGreaterThan(b.start);
          expect(b.end - b.start).toBeLessThanOrEqual(maxTexts);
          const sum = tokens.slice(b.start, b.end).reduce((a, c) => a + c, 0);
          expect(b.tokens).toBe(sum);
          if (b.end - b.start > 1) expect(sum).toBeLessThanOrEqual(maxTokens);
          next = b.end;
        }
        expect(next).toBe(tokens.length);
        // Greedy: no batch could have taken the next text.
        for (let k = 0; k + 1 < batches.length; k++) {
          const b = batches[k]!;
          expect(b.end - b.start === maxTexts || b.tokens + tokens[b.end]! > maxTokens).toBe(true);
        }
      }),
    );
  });

  it('runLimited keeps the limit and the order, and stops at the first failure', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const tasks = Array.from({ length: 12 }, (_, i) => async () => {
      started.push(i);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return i * 10;
    });
    expect(await runLimited(tasks, 3)).toEqual(tasks.map((_, i) => i * 10));
    expect(most).toBe(3);

    started.length = 0;
    const failing = Array.from({ length: 12 }, (_, i) => async (signal: AbortSignal) => {
      started.push(i);
      if (i === 2) throw new Error('task 2 failed');
      await new Promise((r, reject) => {
        const t = setTimeout(r, 50);
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)));
      });
      return i;
    });
    await expect(runLimited(failing, 2)).rejects.toThrow('task 2 failed');
    expect(started.length).toBeLessThanOrEqual(4);
  });
});

describe('vectors', () => {
  it('decodes float arrays and little-endian base64 float32, refusing anything else', () => {
    const v = Float32Array.from([0.5, -1.25, 3]);
    expect(Array.from(decodeVector([0.5, -1.25, 3])!)).toEqual([0.5, -1.25, 3]);
    expect(Array.from(decodeVector(Buffer.from(v.buffer).toString('base64'))!)).toEqual([0.5, -1.25, 3]);
    expect(decodeVector([1, 'x'])).toBeUndefined();
    expect(decodeVector([1, Number.NaN])).toBeUndefined();
    expect(decodeVector('AAA')).toBeUndefined();
    expect(decodeVector({})).toBeUndefined();
  });

  it('combines windows by token-weighted mean, renormalised when the inputs are unit vectors', () => {
    const a = Float32Array.from([1, 0]);
    const b = Float32Array.from([0, 1]);
    const c = combineVectors([a, b], [3, 1]);
    expect(Math.hypot(...c)).toBeCloseTo(1, 6);
    expect(c[0]! / c[1]!).toBeCloseTo(3, 5);
    const raw = combineVectors([Float32Array.from([2, 0]), Float32Array.from([0, 4])], [1, 1]);
    expect(Array.from(raw)).toEqual([1, 2]);
  });
});
