import { afterEach, describe, expect, it, vi } from "vitest";
import { LIMITER_TIMEOUT_MS, WINDOW_MS } from "./interface";
import { Reservations } from "./reservations";

/** Early in a window: the times below stay in it. */
const windowStart = () => Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 100;

/** A call whose request ended before it settled: workerd dropped its continuations, so it never settles. */
const abandoned = () => new Promise<never>(() => {});

describe("Reservations: calls whose request ended", () => {
  afterEach(() => vi.useRealTimers());

  it("a refusal waits for a call in flight no longer than the limiter's deadline", async () => {
    vi.useFakeTimers();
    const r = new Reservations();
    const now = windowStart();
    r.track("k", now, 4, abandoned());
    let done = false;
    r.settled("k", now).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(LIMITER_TIMEOUT_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    // Once given up on, it is not waited for at all.
    await expect(r.settled("k", now + LIMITER_TIMEOUT_MS)).resolves.toBeUndefined();
  });

  it("a call in flight counts against the next reservation's size until it settles or is given up on", async () => {
    const r = new Reservations();
    const now = windowStart();
    // Redis left 20 after a reservation of 8 a moment ago: the key is busy, so the next size is RESERVE_MAX.
    r.granted("k", now, 8, 20);
    expect(r.size("k", now + 10)).toBe(8);
    r.track("k", now + 10, 15, abandoned());
    // 20 left − 15 being reserved − 1: 4.
    expect(r.size("k", now + 20)).toBe(4);
    expect(r.size("k", now + 10 + LIMITER_TIMEOUT_MS)).toBe(8);
    const answered = Promise.resolve();
    r.track("k", now + 30, 15, answered);
    await answered;
    await Promise.resolve();
    expect(r.size("k", now + 40)).toBe(8);
  });
});
