/** Longest pause between a waiting call's looks for a free slot. */
const POLL_MAX_MS = 8;

/** A held slot: it lapses at `until` if its holder never gives it back. */
export interface Slot {
  until: number;
}

/**
 * A cap on calls in flight shared by every request of an isolate (DB_MAX_CONCURRENCY), built for two
 * rules of workerd that a promise queue (p-limit's) breaks:
 * - When a request ends (its response sent, nothing left in `waitUntil`), its pending continuations are
 *   dropped: a call it left in flight never returns its slot. So a slot is a lease that lapses after
 *   `leaseMs`, the deadline every call ends by.
 * - A request must not be resumed by another request's code: a waiter woken by the holder's release
 *   never runs if that holder's request has ended, and I/O objects (an AbortSignal) may not cross between
 *   requests. So a waiter looks for a free slot on its own timer, never woken by another request.
 * Looking costs nothing while slots are free; only a call that finds them all taken waits (1, 2, 4, then
 * every 8 ms), within its own deadline.
 */
export class CallSlots {
  private readonly held = new Set<Slot>();

  constructor(
    readonly size: number,
    private readonly leaseMs: number,
  ) {}

  /** A slot now, or undefined when all are held (lapsed ones are taken back first). */
  tryTake(now = Date.now()): Slot | undefined {
    if (this.held.size >= this.size) for (const slot of this.held) if (slot.until <= now) this.held.delete(slot);
    if (this.held.size >= this.size) return undefined;
    const slot = { until: now + this.leaseMs };
    this.held.add(slot);
    return slot;
  }

  /** Waits for a slot until `signal` aborts; then throws `expired()`. */
  async take(signal: AbortSignal, expired: () => Error): Promise<Slot> {
    for (let pause = 1; ; pause = Math.min(pause * 2, POLL_MAX_MS)) {
      const slot = this.tryTake();
      if (slot) return slot;
      if (signal.aborted) throw expired();
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  release(slot: Slot): void {
    this.held.delete(slot);
  }

  /** Slots held now (lapsed ones included until taken back). */
  get inUse(): number {
    return this.held.size;
  }
}
