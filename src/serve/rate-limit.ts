/**
 * Per-caller token buckets: each caller (a key's name, or the client address without keys) has
 * `burst` tokens, refilled at `perSecond`; a request takes one, and with none left it is refused
 * with the seconds until the next token (429, Retry-After). Memory: one small record per caller
 * seen, dropped once its bucket would be full again.
 */
export interface RateLimit {
  /** Sustained requests per second per caller. */
  perSecond: number;
  /** Requests a caller may make at once. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweeps = 0;

  constructor(private readonly limit: RateLimit, private readonly now: () => number = () => performance.now()) {}

  /** Takes a token for `caller`: undefined when allowed, else the whole seconds to wait. */
  take(caller: string): number | undefined {
    const now = this.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.limit.burst, at: now };
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond);
    bucket.at = now;
    this.buckets.set(caller, bucket);
    if (++this.sweeps >= 10_000) this.sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }

  private sweep(now: number): void {
    this.sweeps = 0;
    const full = (this.limit.burst / this.limit.perSecond) * 1000;
    for (const [caller, bucket] of this.buckets) if (now - bucket.at > full) this.buckets.delete(caller);
  }
}
