import type { Logger } from "../platform/logger";

/** Consecutive limiter failures (timeouts or errors, no answer in between) that open the circuit. */
export const CIRCUIT_OPEN_AFTER = 2;
/** While open, this isolate does not ask the limiter for this long; then one request probes it. */
export const CIRCUIT_RETRY_MS = 10_000;

/**
 * Closed: every request asks Redis. CIRCUIT_OPEN_AFTER failures in a row (no answer within
 * LIMITER_TIMEOUT_MS, or an error) open it: requests still waiting on Redis are released at once
 * and later ones do not ask for CIRCUIT_RETRY_MS; then one request probes (half-open) while the
 * others still skip Redis. A stalled Redis thus costs one deadline per isolate per interval (and
 * CIRCUIT_OPEN_AFTER once, when it first stalls). State changes are logged, once each.
 */
export class Circuit {
  private state: "closed" | "open" | "probing" = "closed";
  private retryAt = 0;
  private failures = 0;
  /** Each waiter with the time it gives up by: one still here after that belongs to a request that ended. */
  private readonly waiters = new Map<() => void, number>();

  /** Whether this request may ask Redis (in the open state, the first one after the interval may). */
  allows(now: number): boolean {
    if (this.state === "closed") return true;
    if (this.state === "open" && now >= this.retryAt) {
      this.state = "probing";
      return true;
    }
    return false;
  }

  /**
   * Registers a waiter released when the circuit opens, until `until` (its deadline); returns its removal.
   * A waiter whose request ended never removes itself (workerd drops that request's continuations): it
   * is dropped once its deadline has passed, when the next waiter registers.
   */
  onOpen(release: () => void, until: number): () => void {
    const now = Date.now();
    for (const [waiter, by] of this.waiters) if (by <= now) this.waiters.delete(waiter);
    this.waiters.set(release, until);
    return () => this.waiters.delete(release);
  }

  /** Waiters registered now. */
  get waiting(): number {
    return this.waiters.size;
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
    for (const release of this.waiters.keys()) release();
    this.waiters.clear();
  }
}
