import { LIMITER_TIMEOUT_MS, LOCAL_KEYS_MAX, WINDOW_MS } from "./interface";

/** Most requests one Redis call reserves for this isolate (see Reservations). */
export const RESERVE_MAX = 8;
/** A reservation is sized to the requests this isolate expects for the key within this time. */
const RESERVE_HORIZON_MS = 1000;

/**
 * Requests this isolate has reserved in Redis ahead of time, per key. A key this isolate sees busy asks
 * Redis to count several requests at once (`rate`), and serves the next ones from that reservation
 * without a call, so a busy key costs one Redis call per few requests instead of one each.
 *
 * Redis counts a reservation before any of it is served, and a reservation is only used within the
 * fixed window it was counted in; later in that window the previous window weighs less, so what was
 * admitted stays admitted. Across isolates a key is therefore never served more than Redis allowed
 * (300 per window): reserving can only make others refuse early, by what an isolate reserved and did
 * not use (at most RESERVE_MAX - 1 per isolate and key; dropped when the window ends). docs/reliability.md#reserved-requests.
 *
 * The size follows the key's rate here: the requests expected within RESERVE_HORIZON_MS (from how
 * fast the previous reservation went), at most RESERVE_MAX, below what Redis said was left minus what
 * calls in flight are reserving (so one isolate alone never reserves past the limit), and 1 for a key
 * seen for the first time in the window.
 */
export class Reservations {
  private readonly keys = new Map<
    string,
    {
      window: number;
      /** Reserved in this window and not yet served. */
      left: number;
      /** What Redis said was left after the last reservation (this isolate's unused part not included). */
      remaining: number;
      /** Size and answer time of the last reservation: the key's rate here. */
      size: number;
      at: number;
      /**
       * The calls for this key in flight (a refusal waits for them): their sizes, and when they are given up
       * on. A call is answered or abandoned within LIMITER_TIMEOUT_MS, unless the request that made it ended
       * first: workerd then drops its continuations, and the call would otherwise stay "in flight" for good.
       */
      calls: Map<Promise<unknown>, { size: number; until: number }>;
    }
  >();

  private entry(key: string, now: number) {
    const window = Math.floor(now / WINDOW_MS);
    let e = this.keys.get(key);
    if (!e) {
      if (this.keys.size >= LOCAL_KEYS_MAX) this.keys.delete(this.keys.keys().next().value!);
      e = { window, left: 0, remaining: 0, size: 0, at: 0, calls: new Map() };
      this.keys.set(key, e);
    } else if (e.window !== window) {
      Object.assign(e, { window, left: 0, remaining: 0, size: 0, at: 0 });
    }
    return e;
  }

  /** A reserved request for this key, if this isolate holds one for the current window. */
  take(key: string, now: number): { remaining: number } | undefined {
    const e = this.keys.get(key);
    if (!e || e.window !== Math.floor(now / WINDOW_MS) || e.left <= 0) return undefined;
    e.left--;
    return { remaining: Math.max(0, e.remaining) + e.left };
  }

  /** How many requests the next call for this key should count. */
  size(key: string, now: number): number {
    const e = this.entry(key, now);
    if (e.size === 0) return 1;
    const expected = Math.round((e.size * RESERVE_HORIZON_MS) / Math.max(1, now - e.at));
    let reserving = 0;
    for (const { size } of this.inFlight(e, now).values()) reserving += size;
    // One below what is left, so that only a single-request call can take the last one: the library
    // reports "none left" and "past the limit" alike (remaining 0), which for a reservation would be ambiguous.
    return Math.max(1, Math.min(RESERVE_MAX, expected, e.remaining - reserving - 1));
  }

  /** Tracks a call counting `size` requests until it settles. */
  track(key: string, now: number, size: number, call: Promise<unknown>) {
    const e = this.entry(key, now);
    e.calls.set(call, { size, until: now + LIMITER_TIMEOUT_MS });
    call.finally(() => e.calls.delete(call));
  }

  /** Redis counted `size` requests and left `remaining`: one is this request, the rest are reserved. */
  granted(key: string, now: number, size: number, remaining: number): { remaining: number } {
    const e = this.entry(key, now);
    // The library reports a reservation past the limit as remaining 0, without how much of it fitted:
    // count only this request (the rest may make others refuse early, never serve more).
    const reserved = remaining > 0 || size === 1 ? size - 1 : 0;
    Object.assign(e, { left: e.left + reserved, remaining, size, at: now });
    return { remaining: Math.max(0, remaining) + e.left };
  }

  /** Until the calls in flight for this key have settled, or been given up on (on this request's own timer). */
  settled(key: string, now: number): Promise<unknown> {
    const e = this.keys.get(key);
    const calls = e ? [...this.inFlight(e, now)] : [];
    if (!calls.length) return Promise.resolve();
    const wait = Math.max(...calls.map(([, c]) => c.until)) - now;
    return Promise.race([Promise.all(calls.map(([call]) => call)), new Promise((resolve) => setTimeout(resolve, wait))]);
  }

  /** The key's calls in flight, once those given up on (their request ended) are dropped. */
  private inFlight(e: { calls: Map<Promise<unknown>, { size: number; until: number }> }, now: number) {
    for (const [call, { until }] of e.calls) if (until <= now) e.calls.delete(call);
    return e.calls;
  }

  /** Whether this isolate holds reserved requests for this key in the current window. */
  holds(key: string, now: number): boolean {
    const e = this.keys.get(key);
    return e !== undefined && e.window === Math.floor(now / WINDOW_MS) && e.left > 0;
  }
}
