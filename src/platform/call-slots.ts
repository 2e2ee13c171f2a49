/** Longest pause between a waiting call's looks for a free slot. */
const POLL_MAX_MS = 8;

/** A held slot, or a place in the line for one: it lapses at `until` if its request never gives it up. */
export interface Slot {
  until: number;
}

/**
 * A cap on calls in flight shared by every request of an isolate (DB_MAX_CONCURRENCY), built for two
 * rules of workerd that a promise queue (p-limit's) breaks:
 * - When a request ends (its response sent, nothing left in `waitUntil`), its pending continuations are
 *   dropped: a call it left in flight never returns its slot. So a slot is a lease that lapses after
 *   `leaseMs`, the deadline every call ends by; a place in the line lapses the same way.
 * - A request must not be resumed by another request's code: a waiter woken by the holder's release
 *   never runs if that holder's request has ended, and I/O objects (an AbortSignal) may not cross between
 *   requests. So a waiter looks for a free slot on its own timer, never woken by another request.
 * Calls take slots in the order they came: a call waits while others wait before it, and a waiter takes
 * a free slot only when fewer waiters are ahead of it than slots are free. Looking costs nothing while
 * slots are free; a waiter looks after 1, 2, 4 ms, then every 8 ms, sooner as it nears the front.
 */
export class CallSlots {
  private readonly held = new Set<Slot>();
  /** The waiting calls, first come first. */
  private readonly line: Slot[] = [];

  constructor(
    readonly size: number,
    private readonly leaseMs: number,
  ) {}

  /** A slot now, or undefined when all are held or other calls wait for one (lapsed ones are dropped first). */
  tryTake(now = Date.now()): Slot | undefined {
    return this.waiting(now) === 0 ? this.takeFree(now, 0) : undefined;
  }

  /** Waits in line for a slot until `signal` aborts; then throws `expired()`. */
  async take(signal: AbortSignal, expired: () => Error): Promise<Slot> {
    const place: Slot = { until: Date.now() + this.leaseMs };
    this.line.push(place);
    try {
      for (let looks = 0; ; looks++) {
        const now = Date.now();
        this.waiting(now);
        const ahead = this.line.indexOf(place);
        // Past its deadline (its place lapses with it) a call takes no slot, even one free now.
        if (signal.aborted || ahead < 0) throw expired();
        const slot = this.takeFree(now, ahead);
        if (slot) return slot;
        // The front of the line looks every millisecond; further back, less often.
        const pause = Math.min(2 ** Math.min(looks, 3), POLL_MAX_MS, ahead + 1);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      const at = this.line.indexOf(place);
      if (at >= 0) this.line.splice(at, 1);
    }
  }

  release(slot: Slot): void {
    this.held.delete(slot);
  }

  /** Slots held now (lapsed ones included until taken back). */
  get inUse(): number {
    return this.held.size;
  }

  /** A slot, if more are free than the `ahead` waiters before this call take. */
  private takeFree(now: number, ahead: number): Slot | undefined {
    if (this.held.size + ahead >= this.size) for (const slot of this.held) if (slot.until <= now) this.held.delete(slot);
    if (this.held.size + ahead >= this.size) return undefined;
    const slot = { until: now + this.leaseMs };
    this.held.add(slot);
    return slot;
  }

  /**
   * How many calls wait, once those whose place lapsed (their request ended) are dropped. Places lapse in
   * the order they were taken (each `leaseMs` after it), so only the front of the line needs looking at.
   */
  private waiting(now: number): number {
    while (this.line.length && this.line[0].until <= now) this.line.shift();
    return this.line.length;
  }
}
