import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallSlots, type Slot } from "./call-slots";

const expired = () => new Error("expired");

describe("CallSlots", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Starts a waiting call; `got` says once it holds a slot (or failed). */
  const wait = (slots: CallSlots, signal = new AbortController().signal) => {
    const call = { slot: undefined as Slot | undefined, error: undefined as Error | undefined };
    slots.take(signal, expired).then(
      (slot) => (call.slot = slot),
      (e: Error) => (call.error = e),
    );
    return call;
  };

  it("gives slots at once while they are free, then makes calls wait", () => {
    const slots = new CallSlots(2, 1000);
    expect(slots.tryTake()).toBeDefined();
    expect(slots.tryTake()).toBeDefined();
    expect(slots.tryTake()).toBeUndefined();
    expect(slots.inUse).toBe(2);
  });

  it("serves waiting calls in the order they came, and a new call does not pass them", async () => {
    const slots = new CallSlots(1, 5000);
    const first = slots.tryTake()!;
    const a = wait(slots);
    await vi.advanceTimersByTimeAsync(3);
    const b = wait(slots);
    const c = wait(slots);
    await vi.advanceTimersByTimeAsync(20);
    expect([a.slot, b.slot, c.slot]).toEqual([undefined, undefined, undefined]);
    slots.release(first);
    // A slot freed while calls wait goes to the first of them, not to a call that just came.
    expect(slots.tryTake()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect([!!a.slot, !!b.slot, !!c.slot]).toEqual([true, false, false]);
    slots.release(a.slot!);
    await vi.advanceTimersByTimeAsync(10);
    expect([!!b.slot, !!c.slot]).toEqual([true, false]);
    slots.release(b.slot!);
    await vi.advanceTimersByTimeAsync(10);
    expect(!!c.slot).toBe(true);
    slots.release(c.slot!);
    expect(slots.tryTake()).toBeDefined();
  });

  it("gives several waiting calls a slot each when several are freed", async () => {
    const slots = new CallSlots(3, 5000);
    const held = [slots.tryTake()!, slots.tryTake()!, slots.tryTake()!];
    const waiting = [wait(slots), wait(slots), wait(slots)];
    await vi.advanceTimersByTimeAsync(20);
    slots.release(held[0]);
    slots.release(held[1]);
    await vi.advanceTimersByTimeAsync(10);
    expect(waiting.map((w) => !!w.slot)).toEqual([true, true, false]);
  });

  it("takes back a slot never given back (its request ended) once its lease lapses", async () => {
    const slots = new CallSlots(1, 1000);
    slots.tryTake(); // never released
    // A call coming later than it (one coming in the same instant reaches its own deadline as the lease lapses).
    await vi.advanceTimersByTimeAsync(100);
    const a = wait(slots);
    await vi.advanceTimersByTimeAsync(890);
    expect(a.slot).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20);
    expect(a.slot).toBeDefined();
  });

  it("a waiting call past its deadline takes no slot, even one freed at that moment", async () => {
    const slots = new CallSlots(1, 60_000);
    const first = slots.tryTake()!;
    const deadline = new AbortController();
    const a = wait(slots, deadline.signal);
    await vi.advanceTimersByTimeAsync(10);
    slots.release(first);
    deadline.abort();
    await vi.advanceTimersByTimeAsync(10);
    expect(a).toEqual({ slot: undefined, error: new Error("expired") });
    expect(slots.inUse).toBe(0);
  });

  it("a waiting call gives up when its signal aborts, and leaves the line", async () => {
    const slots = new CallSlots(1, 60_000);
    const first = slots.tryTake()!;
    const deadline = new AbortController();
    const a = wait(slots, deadline.signal);
    const b = wait(slots);
    await vi.advanceTimersByTimeAsync(10);
    deadline.abort();
    await vi.advanceTimersByTimeAsync(10);
    expect(a.error?.message).toBe("expired");
    slots.release(first);
    await vi.advanceTimersByTimeAsync(10);
    expect(b.slot).toBeDefined();
  });
});
