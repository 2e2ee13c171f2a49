import { type LimitResult, LOCAL_KEYS_MAX, RATE_LIMIT, WINDOW_MS, windowEnd } from "./interface";

/**
 * The requests this isolate let through, per key, counted the way Upstash's sliding window counts
 * them (two fixed windows, the previous one weighted by how much of it still overlaps). This count
 * is never above the global one Redis keeps, so "over the limit here" implies "over the limit", and a
 * burst is held even while Redis answers late: one isolate serves at most RATE_LIMIT per window.
 */
export class LocalWindow {
  /** What one key may use per window (RATE_LIMIT requests, or the batch items' limit). */
  constructor(private readonly max = RATE_LIMIT) {}

  private readonly counts = new Map<string, { window: number; current: number; previous: number }>();

  /** The key's counts for the fixed window holding `now` (zeros for an unknown key). */
  private read(key: string, now: number) {
    const window = Math.floor(now / WINDOW_MS);
    const e = this.counts.get(key);
    if (!e || e.window < window - 1) return { window, current: 0, previous: 0 };
    return e.window === window ? e : { window, current: 0, previous: e.current };
  }

  used(key: string, now: number): number {
    const { current, previous } = this.read(key, now);
    return Math.floor((1 - (now % WINDOW_MS) / WINDOW_MS) * previous) + current;
  }

  add(key: string, now: number, n: number) {
    const e = { ...this.read(key, now) };
    e.current += n;
    this.counts.delete(key); // re-inserted last: the map's order is least recently counted first
    if (this.counts.size >= LOCAL_KEYS_MAX) this.makeRoom(e.window);
    this.counts.set(key, e);
  }

  /** A refusal when this isolate alone already let the key's limit through (or `n` more would pass it). */
  refused(key: string, now: number, n = 1): LimitResult | undefined {
    if (this.used(key, now) + n <= this.max) return undefined;
    return {
      allowed: false,
      limit: this.max,
      remaining: Math.max(0, this.max - this.used(key, now)),
      reset: windowEnd(now),
      failedOpen: false,
    };
  }

  /** The answer for a request served on this count (counted at `counted`). */
  served(key: string, counted: number, failedOpen: boolean): LimitResult {
    return {
      allowed: true,
      limit: this.max,
      remaining: Math.max(0, this.max - this.used(key, Date.now())),
      reset: windowEnd(counted),
      failedOpen,
    };
  }

  /** Drops keys idle for two windows; if that is not enough, the least recently counted tenth (Redis still limits them). */
  private makeRoom(window: number) {
    for (const [key, e] of this.counts) if (e.window < window - 1) this.counts.delete(key);
    if (this.counts.size < LOCAL_KEYS_MAX) return;
    let drop = LOCAL_KEYS_MAX / 10;
    for (const key of this.counts.keys()) {
      if (drop-- <= 0) break;
      this.counts.delete(key);
    }
  }
}
