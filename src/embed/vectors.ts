/** Small vector helpers shared by the embedders and the document path. */

/**
 * A float32 vector from the wire: a JSON number array, or base64 of little-endian float32s (the
 * OpenAI `encoding_format: "base64"` answer). Undefined when it is neither, or has a non-finite value.
 */
export function decodeVector(value: unknown): Float32Array | undefined {
  let vector: Float32Array;
  if (Array.isArray(value)) {
    vector = new Float32Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const x = value[i];
      if (typeof x !== 'number') return undefined;
      vector[i] = x;
    }
  } else if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) return undefined;
    // Copy: the Buffer may sit at an offset a Float32Array cannot start at.
    vector = new Float32Array(bytes.length / 4);
    new Uint8Array(vector.buffer).set(bytes);
    if (!littleEndian) for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  } else {
    return undefined;
  }
  return allFinite(vector) ? vector : undefined;
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function allFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i]!)) return false;
  return true;
}

/** Euclidean length. */
export function norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/** Scales to length 1 in place (a zero vector stays zero); returns it. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  const n = norm(vector);
  if (n > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= n;
  return vector;
}

/** True when every vector has length 1 (within float32 rounding): the model normalises. */
export function allUnitLength(vectors: readonly Float32Array[]): boolean {
  return vectors.every((v) => Math.abs(norm(v) - 1) < 1e-3);
}

/**
 * The weighted mean of equal-length vectors (weights: each window's tokens), renormalised to
 * length 1 when the inputs all had length 1, so a long text's vector lives where its windows' do.
 */
export function combineVectors(vectors: readonly Float32Array[], weights: readonly number[]): Float32Array {
  if (vectors.length === 1) return vectors[0]!;
  const out = new Float32Array(vectors[0]!.length);
  let total = 0;
  for (let k = 0; k < vectors.length; k++) {
    const w = Math.max(1, weights[k] ?? 1);
    total += w;
    const v = vectors[k]!;
    for (let i = 0; i < out.length; i++) out[i]! += v[i]! * w;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= total;
  return allUnitLength(vectors) ? normalizeInPlace(out) : out;
}
