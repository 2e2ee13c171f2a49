import { Ratelimit } from "@upstash/ratelimit";
import type { Bindings } from "../platform/env";
import type { Logger } from "../platform/logger";
import { upstashRedis } from "../platform/redis";

export const RATE_LIMIT = 300;
export const RATE_WINDOW_SECONDS = 60;
/** Past this the limiter is treated as down and the request is served (fail-open). */
export const LIMITER_TIMEOUT_MS = 1000;
/** Consecutive limiter failures (timeouts or errors, no answer in between) that open the circuit. */
export const CIRCUIT_OPEN_AFTER = 2;
/** While open, this isolate does not ask the limiter for this long; then one request probes it. */
export const CIRCUIT_RETRY_MS = 10_000;
/** A limiter call still unanswered after this is abandoned (it keeps counting the request until then). */
const LIMITER_ABANDON_MS = 10_000;
const PREFIX = "crm:ratelimit";
const WINDOW_MS = RATE_WINDOW_SECONDS * 1000;
/** Keys one isolate counts at most (each a few dozen bytes). */
const LOCAL_KEYS_MAX = 10_000;
/** Most requests one Redis call reserves for this isolate (see Reservations). */
export const RESERVE_MAX = 8;
/** A reservation is sized to the requests this isolate expects for the key within this time. */
const RESERVE_HORIZON_MS = 1000;

export interface LimitResult {
  /** False only when the limiter (or this isolate's own count) said "over the limit". */
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window frees capacity. */
  reset: number;
  /** True when Redis could not answer and the request was let through on this isolate's count alone. */
  failedOpen: boolean;
}

export interface Limiter {
  /**
   * A refusal when this isolate already knows the key is over its limit (its own count, or a
   * refusal from Redis cached until the window ends); undefined otherwise. No I/O, so a caller can
   * answer 429 before doing any other work.
   */
  refused(key: string): LimitResult | undefined;
  /** Counts the request and decides; never throws (Redis trouble fails open). */
  limit(key: string, defer: (p: Promise<unknown>) => void, logger: Logger): Promise<LimitResult>;
}

/**
 * The requests this isolate let through, per key, counted the way Upstash's sliding window counts
 * them (two fixed windows, the previous one weighted by how much of it still overlaps). This count
 * is never above the global one Redis keeps, so "over the limit here" implies "over the limit", and a
 * burst is held even while Redis answers late: one isolate serves at most RATE_LIMIT per window.
 */
class LocalWindow {
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
class Reservations {
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
      /** Sizes of the calls for this key still in flight, and those calls (a refusal waits for them). */
      reserving: number;
      calls: Set<Promise<unknown>>;
    }
  >();

  private entry(key: string, now: number) {
    const window = Math.floor(now / WINDOW_MS);
    let e = this.keys.get(key);
    if (!e) {
      if (this.keys.size >= LOCAL_KEYS_MAX) this.keys.delete(this.keys.keys().next().value!);
      e = { window, left: 0, remaining: 0, size: 0, at: 0, reserving: 0, calls: new Set() };
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
    // One below what is left, so that only a single-request call can take the last one: the library
    // reports "none left" and "past the limit" alike (remaining 0), which for a reservation would be ambiguous.
    return Math.max(1, Math.min(RESERVE_MAX, expected, e.remaining - e.reserving - 1));
  }

  /** Tracks a call counting `size` requests until it settles. */
  track(key: string, now: number, size: number, call: Promise<unknown>) {
    const e = this.entry(key, now);
    e.reserving += size;
    e.calls.add(call);
    call.finally(() => {
      e.reserving -= size;
      e.calls.delete(call);
    });
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

  /** Until the calls in flight for this key have settled (each settles within the limiter's deadline). */
  settled(key: string): Promise<unknown> {
    return Promise.all([...(this.keys.get(key)?.calls ?? [])]);
  }

  /** Whether this isolate holds reserved requests for this key in the current window. */
  holds(key: string, now: number): boolean {
    const e = this.keys.get(key);
    return e !== undefined && e.window === Math.floor(now / WINDOW_MS) && e.left > 0;
  }
}

/** End of the current fixed window: when Upstash's sliding window next frees capacity. */
const windowEnd = (now: number) => (Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS;

/**
 * Closed: every request asks Redis. CIRCUIT_OPEN_AFTER failures in a row (no answer within
 * LIMITER_TIMEOUT_MS, or an error) open it: requests still waiting on Redis are released at once
 * and later ones do not ask for CIRCUIT_RETRY_MS; then one request probes (half-open) while the
 * others still skip Redis. A stalled Redis thus costs one deadline per isolate per interval (and
 * CIRCUIT_OPEN_AFTER once, when it first stalls). State changes are logged, once each.
 */
class Circuit {
  private state: "closed" | "open" | "probing" = "closed";
  private retryAt = 0;
  private failures = 0;
  private readonly waiters = new Set<() => void>();

  /** Whether this request may ask Redis (in the open state, the first one after the interval may). */
  allows(now: number): boolean {
    if (this.state === "closed") return true;
    if (this.state === "open" && now >= this.retryAt) {
      this.state = "probing";
      return true;
    }
    return false;
  }

  /** Registers a waiter released when the circuit opens; returns its removal. */
  onOpen(release: () => void): () => void {
    this.waiters.add(release);
    return () => this.waiters.delete(release);
  }

  succeeded(logger: Logger) {
    this.failures = 0;
    if (this.state === "closed") return;
    this.state = "closed";
    logger.info("rate limiter reachable again; circuit closed");
  }

  failed(logger: Logger, reason: string) {
    if (this.state === "closed" && ++this.failures < CIRCUIT_OPEN_AFTER) return;
    if (this.state === "closed") {
      logger.warn("rate limiter unavailable; circuit open, requests limited per isolate", { reason, retry_in_ms: CIRCUIT_RETRY_MS });
    }
    // A late failure of a call started before the circuit opened does not push the probe back.
    if (this.state !== "open") this.retryAt = Date.now() + CIRCUIT_RETRY_MS;
    this.state = "open";
    for (const release of this.waiters) release();
    this.waiters.clear();
  }
}

type Outcome =
  | { kind: "answer"; allowed: boolean; remaining: number; reset: number }
  | { kind: "failed"; reason: string }
  /** Released without an answer because another call opened the circuit. */
  | { kind: "released" };

/**
 * One limiter per isolate. With `ratelimit` (Upstash): Redis decides, this isolate's own count
 * refuses early and caps what it serves while Redis is slow or down. Without it (local dev with
 * the memory backend): the isolate's count alone.
 */
function createIsolateLimiter(ratelimit: Ratelimit | undefined, blocked: Map<string, number>, onMissing?: string): Limiter {
  const local = new LocalWindow();
  const circuit = new Circuit();
  const reservations = new Reservations();
  let missingLogged = false;

  const refused = (key: string, now = Date.now()): LimitResult | undefined => {
    // Requests Redis already counted for this isolate are served even after it started refusing others.
    if (reservations.holds(key, now)) return undefined;
    // The ephemeral cache of @upstash/ratelimit: a key Redis refused, until its window ends.
    const until = blocked.get(`${PREFIX}:${key}`);
    if (until !== undefined && until > now) return { allowed: false, limit: RATE_LIMIT, remaining: 0, reset: until, failedOpen: false };
    if (local.used(key, now) >= RATE_LIMIT) {
      return { allowed: false, limit: RATE_LIMIT, remaining: 0, reset: windowEnd(now), failedOpen: false };
    }
    return undefined;
  };

  /**
   * Asks Redis, waiting at most LIMITER_TIMEOUT_MS, or less if the circuit opens meanwhile. An answer
   * that comes after that (the request was served failing open) goes to `late`.
   */
  const ask = (
    rl: Ratelimit,
    key: string,
    rate: number,
    defer: (p: Promise<unknown>) => void,
    late: (answer: { allowed: boolean; remaining: number }) => void,
  ) =>
    new Promise<Outcome>((resolve) => {
      const call = rl.limit(key, { rate });
      // Kept alive after the response (waitUntil): a late answer still counts this request.
      defer(call.then((r) => r.pending).catch(() => {}));
      let settled = false;
      const finish = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ kind: "failed", reason: `no answer within ${LIMITER_TIMEOUT_MS} ms` }), LIMITER_TIMEOUT_MS);
      const unsubscribe = circuit.onOpen(() => finish({ kind: "released" }));
      call.then(
        (r) => {
          if (settled) late({ allowed: r.success, remaining: r.remaining });
          else finish({ kind: "answer", allowed: r.success, remaining: r.remaining, reset: r.reset });
        },
        (e: unknown) => finish({ kind: "failed", reason: e instanceof Error ? e.message : String(e) }),
      );
    });

  return {
    refused: (key) => refused(key),
    async limit(key, defer, logger) {
      const now = Date.now();
      const early = refused(key, now);
      if (early) return early;
      // Counted here before asking Redis, so concurrent requests see each other.
      local.add(key, now, 1);
      const served = (failedOpen: boolean): LimitResult => ({
        allowed: true,
        limit: RATE_LIMIT,
        remaining: Math.max(0, RATE_LIMIT - local.used(key, Date.now())),
        reset: windowEnd(now),
        failedOpen,
      });
      if (!ratelimit) {
        if (onMissing && !missingLogged) {
          missingLogged = true;
          logger.warn("rate limiter not configured; requests limited per isolate", { reason: onMissing });
        }
        return served(onMissing !== undefined);
      }
      const allowed = (r: { remaining: number }): LimitResult => ({
        allowed: true,
        limit: RATE_LIMIT,
        remaining: r.remaining,
        reset: windowEnd(now),
        failedOpen: false,
      });
      const reserved = reservations.take(key, now);
      if (reserved) return allowed(reserved);
      if (!circuit.allows(now)) return served(true);
      const size = reservations.size(key, now);
      // Redis counted a late answer's whole reservation: this isolate serves the rest, within that window.
      const lateAnswer = (answer: { allowed: boolean; remaining: number }) => {
        const at = Date.now();
        if (answer.allowed && Math.floor(at / WINDOW_MS) === Math.floor(now / WINDOW_MS))
          reservations.granted(key, at, size, answer.remaining);
      };
      const asking = ask(ratelimit, key, size, defer, lateAnswer);
      reservations.track(key, now, size, asking);
      const outcome = await asking;
      if (outcome.kind !== "answer") {
        if (outcome.kind === "failed") circuit.failed(logger, outcome.reason);
        return served(true);
      }
      circuit.succeeded(logger);
      if (outcome.allowed) return allowed(reservations.granted(key, Date.now(), size, outcome.remaining));
      // Refused: a reservation answered meanwhile for this key may still hold a request Redis counted.
      await reservations.settled(key);
      const late = reservations.take(key, Date.now());
      if (late) return allowed(late);
      // Redis did not count a refused request: neither does this isolate.
      local.add(key, now, -1);
      return { allowed: false, limit: RATE_LIMIT, remaining: 0, reset: outcome.reset, failedOpen: false };
    },
  };
}

let memoryLimiter: Limiter | undefined;
let upstashLimiter: { config: string; limiter: Limiter } | undefined;

/** The limiter for these bindings, built once per isolate (bindings do not change within one). */
export function createLimiter(env: Bindings): Limiter {
  if (env.RATE_LIMIT_BACKEND === "memory") {
    memoryLimiter ??= createIsolateLimiter(undefined, new Map());
    return memoryLimiter;
  }
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const config = `${url}|${token}`;
  if (upstashLimiter?.config !== config) upstashLimiter = { config, limiter: createUpstashLimiter(url, token) };
  return upstashLimiter.limiter;
}

function createUpstashLimiter(url: string | undefined, token: string | undefined): Limiter {
  const blocked = new Map<string, number>();
  if (!url || !token) return createIsolateLimiter(undefined, blocked, "UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN not configured");
  const ratelimit = new Ratelimit({
    // No client retries: a slow or dead Redis must not hold the request (fail-open instead).
    // Each call is abandoned after LIMITER_ABANDON_MS, so a stall does not pile up open fetches.
    // `Ratelimit` calls only evalsha and eval on it (single region, no deny list): see platform/redis.ts.
    redis: upstashRedis({ url, token, signal: () => AbortSignal.timeout(LIMITER_ABANDON_MS) }) as unknown as ConstructorParameters<
      typeof Ratelimit
    >[0]["redis"],
    limiter: Ratelimit.slidingWindow(RATE_LIMIT, `${RATE_WINDOW_SECONDS} s`),
    prefix: PREFIX,
    // Refusals are cached in this map until their window ends; `refused` reads it.
    ephemeralCache: blocked,
    // Our own deadline: the library's would abandon the call, and the request would go uncounted.
    timeout: 0,
    analytics: false,
  });
  return createIsolateLimiter(ratelimit, blocked);
}
