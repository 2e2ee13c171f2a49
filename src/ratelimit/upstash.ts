import { Ratelimit } from "@upstash/ratelimit";
import { upstashRedis } from "../platform/redis";
import { Circuit } from "./circuit";
import {
  BATCH_ITEMS_LIMIT,
  LIMITER_TIMEOUT_MS,
  type Limiter,
  type LimitResult,
  LOCAL_KEYS_MAX,
  RATE_LIMIT,
  RATE_WINDOW_SECONDS,
  WINDOW_MS,
  windowEnd,
} from "./interface";
import { LocalWindow } from "./local-window";
import { Reservations } from "./reservations";

/** A limiter call still unanswered after this is abandoned (it keeps counting the request until then). */
const LIMITER_ABANDON_MS = 10_000;
const PREFIX = "crm:ratelimit";
const ITEMS_PREFIX = "crm:ratelimit-items";

/** Batch items one Redis call counts ahead for this isolate at most (served to the key's next batches without a call). */
export const ITEMS_RESERVE_AHEAD = 200;

/**
 * Counts `n` batch items in the key's sliding window (two fixed windows, the previous one weighted, as
 * @upstash/ratelimit counts requests) only if all of them fit, and up to `ahead` more for this isolate's
 * next batches as far as they fit: answers `{ left after them, reserved ahead }`, or, when the `n` do not
 * fit, `{ -1, what is left }` with nothing counted. The library's own script counts a request that passes
 * the limit as it refuses it, which for a batch would charge items never written.
 */
const ITEMS_SCRIPT = `
local current = tonumber(redis.call("GET", KEYS[1]) or "0")
local previous = tonumber(redis.call("GET", KEYS[2]) or "0")
local limit, now, window, n, ahead = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local used = math.floor((1 - (now % window) / window) * previous) + current
if used + n > limit then return {-1, math.max(0, limit - used)} end
local extra = math.max(0, math.min(ahead, limit - used - n))
local value = redis.call("INCRBY", KEYS[1], n + extra)
if value == n + extra then redis.call("PEXPIRE", KEYS[1], window * 2 + 1000) end
return {limit - used - n - extra, extra}`;

type Outcome =
  | { kind: "answer"; allowed: boolean; remaining: number; reset: number }
  | { kind: "failed"; reason: string }
  /** Released without an answer because another call opened the circuit. */
  | { kind: "released" };

/**
 * The limiter on Upstash Redis (`@upstash/ratelimit`'s sliding window), one per isolate: Redis decides;
 * this isolate's own count refuses early and caps what it serves while Redis is slow or down (the
 * circuit), and a busy key is served from requests reserved in Redis ahead of time.
 */
export function createUpstashLimiter(url: string, token: string): Limiter {
  const blocked = new Map<string, number>();
  // One client for the requests' limiter and the batch items' script.
  const redis = upstashRedis({ url, token, signal: () => AbortSignal.timeout(LIMITER_ABANDON_MS) });
  const ratelimit = new Ratelimit({
    // No client retries: a slow or dead Redis must not hold the request (fail-open instead).
    // Each call is abandoned after LIMITER_ABANDON_MS, so a stall does not pile up open fetches.
    redis,
    limiter: Ratelimit.slidingWindow(RATE_LIMIT, `${RATE_WINDOW_SECONDS} s`),
    prefix: PREFIX,
    // Refusals are cached in this map until their window ends; `refused` reads it.
    ephemeralCache: blocked,
    // Our own deadline: the library's would abandon the call, and the request would go uncounted.
    timeout: 0,
    analytics: false,
  });
  const local = new LocalWindow();
  const circuit = new Circuit();
  // Batch items: a sliding window of their own in Redis (ITEMS_SCRIPT), and this isolate's count of them.
  const localItems = new LocalWindow(BATCH_ITEMS_LIMIT);
  /** Items Redis counted for this isolate ahead of time, per key, usable in the fixed window they were counted in. */
  const itemsReserved = new Map<string, { window: number; left: number; remaining: number }>();
  const reservations = new Reservations();

  const refused = (key: string, now = Date.now()): LimitResult | undefined => {
    // Requests Redis already counted for this isolate are served even after it started refusing others.
    if (reservations.holds(key, now)) return undefined;
    // The ephemeral cache of @upstash/ratelimit: a key Redis refused, until its window ends.
    const until = blocked.get(`${PREFIX}:${key}`);
    if (until !== undefined && until > now) return { allowed: false, limit: RATE_LIMIT, remaining: 0, reset: until, failedOpen: false };
    return local.refused(key, now);
  };

  /**
   * Asks Redis, waiting at most LIMITER_TIMEOUT_MS, or less if the circuit opens meanwhile. An answer
   * that comes after that (the request was served failing open) goes to `late`.
   */
  const ask = (
    key: string,
    rate: number,
    defer: (p: Promise<unknown>) => void,
    late: (answer: { allowed: boolean; remaining: number }) => void,
  ) =>
    new Promise<Outcome>((resolve) => {
      const call = ratelimit.limit(key, { rate });
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
      const unsubscribe = circuit.onOpen(() => finish({ kind: "released" }), Date.now() + LIMITER_TIMEOUT_MS);
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
      const allowed = (r: { remaining: number }): LimitResult => ({
        allowed: true,
        limit: RATE_LIMIT,
        remaining: r.remaining,
        reset: windowEnd(now),
        failedOpen: false,
      });
      const reserved = reservations.take(key, now);
      if (reserved) return allowed(reserved);
      if (!circuit.allows(now)) return local.served(key, now, true);
      const size = reservations.size(key, now);
      // Redis counted a late answer's whole reservation: this isolate serves the rest, within that window.
      const lateAnswer = (answer: { allowed: boolean; remaining: number }) => {
        const at = Date.now();
        if (answer.allowed && Math.floor(at / WINDOW_MS) === Math.floor(now / WINDOW_MS))
          reservations.granted(key, at, size, answer.remaining);
      };
      const asking = ask(key, size, defer, lateAnswer);
      reservations.track(key, now, size, asking);
      const outcome = await asking;
      if (outcome.kind !== "answer") {
        if (outcome.kind === "failed") circuit.failed(logger, outcome.reason);
        return local.served(key, now, true);
      }
      circuit.succeeded(logger);
      if (outcome.allowed) return allowed(reservations.granted(key, Date.now(), size, outcome.remaining));
      // Refused: a reservation answered meanwhile for this key may still hold a request Redis counted.
      await reservations.settled(key, Date.now());
      const late = reservations.take(key, Date.now());
      if (late) return allowed(late);
      // Redis did not count a refused request: neither does this isolate.
      local.add(key, now, -1);
      return { allowed: false, limit: RATE_LIMIT, remaining: 0, reset: outcome.reset, failedOpen: false };
    },
    async limitItems(key, n, defer, logger) {
      const now = Date.now();
      const window = Math.floor(now / WINDOW_MS);
      const result = { limit: BATCH_ITEMS_LIMIT, reset: windowEnd(now), failedOpen: false };
      // Served from what Redis already counted for this isolate: no call.
      const reserved = itemsReserved.get(key);
      const held = reserved && reserved.window === window ? reserved : undefined;
      if (held && held.left >= n) {
        held.left -= n;
        localItems.add(key, now, n);
        return { ...result, allowed: true, remaining: held.remaining + held.left };
      }
      const early = localItems.refused(key, now, n);
      if (early) return early;
      localItems.add(key, now, n);
      const served = () => localItems.served(key, now, true);
      // Redis asked only when the circuit allows it, within the same deadline; trouble fails open.
      if (!circuit.allows(now)) return served();
      const call = redis.eval<string[], [number, number]>(
        ITEMS_SCRIPT,
        [`${ITEMS_PREFIX}:${key}:${window}`, `${ITEMS_PREFIX}:${key}:${window - 1}`],
        [String(BATCH_ITEMS_LIMIT), String(now), String(WINDOW_MS), String(n), String(ITEMS_RESERVE_AHEAD)],
      );
      // Kept alive after the response (waitUntil): a late answer still counts the items.
      defer(call.catch(() => {}));
      const answer = await Promise.race([
        call.then(
          ([left, extra]) => ({ kind: "answer" as const, left, extra }),
          (e: unknown) => ({ kind: "failed" as const, reason: e instanceof Error ? e.message : String(e) }),
        ),
        new Promise<{ kind: "failed"; reason: string }>((resolve) =>
          setTimeout(() => resolve({ kind: "failed", reason: `no answer within ${LIMITER_TIMEOUT_MS} ms` }), LIMITER_TIMEOUT_MS),
        ),
      ]);
      if (answer.kind === "failed") {
        circuit.failed(logger, answer.reason);
        return served();
      }
      circuit.succeeded(logger);
      const ahead = held?.left ?? 0;
      if (answer.left >= 0) {
        itemsReserved.delete(key); // re-inserted last: the map's order is least recently used first
        if (itemsReserved.size >= LOCAL_KEYS_MAX) itemsReserved.delete(itemsReserved.keys().next().value!);
        itemsReserved.set(key, { window, left: ahead + answer.extra, remaining: answer.left });
        return { ...result, allowed: true, remaining: answer.left + ahead + answer.extra };
      }
      // Redis counted none of them: neither does this isolate. What fits now includes this isolate's reservation.
      localItems.add(key, now, -n);
      return { ...result, allowed: false, remaining: answer.extra + ahead };
    },
  };
}
