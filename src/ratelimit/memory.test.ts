import { afterEach, describe, expect, it, vi } from "vitest";
import type { Bindings } from "../platform/env";
import { createLogger } from "../platform/logger";
import { createLimiter, RATE_LIMIT, RATE_WINDOW_SECONDS } from ".";

const env = { RATE_LIMIT_BACKEND: "memory" } as Bindings;
const logger = createLogger({});
const defer = () => {};
const WINDOW_MS = RATE_WINDOW_SECONDS * 1000;

describe("the isolate's own count (memory backend, and the pre-check ahead of Redis)", () => {
  afterEach(() => vi.useRealTimers());

  it("serves RATE_LIMIT requests of a burst and refuses the rest without asking anyone", async () => {
    vi.useFakeTimers({ now: 10 * WINDOW_MS + 1000 });
    const limiter = createLimiter(env);
    const results = await Promise.all(Array.from({ length: RATE_LIMIT + 50 }, () => limiter.limit("burst", defer, logger)));
    expect(results.filter((r) => r.allowed)).toHaveLength(RATE_LIMIT);
    expect(limiter.refused("burst")).toEqual({ allowed: false, limit: RATE_LIMIT, remaining: 0, reset: 11 * WINDOW_MS, failedOpen: false });
    expect(limiter.refused("another key")).toBeUndefined();
  });

  it("weights the previous window by how much of it still overlaps, as Upstash's sliding window does", async () => {
    vi.useFakeTimers({ now: 20 * WINDOW_MS + 59_000 });
    const limiter = createLimiter(env);
    for (let i = 0; i < RATE_LIMIT; i++) await limiter.limit("slide", defer, logger);
    expect(limiter.refused("slide")).toBeDefined();
    // Half-way through the next window, half of the previous window's requests still count.
    vi.setSystemTime(21 * WINDOW_MS + WINDOW_MS / 2);
    expect(limiter.refused("slide")).toBeUndefined();
    let allowed = 0;
    for (let i = 0; i < RATE_LIMIT; i++) if ((await limiter.limit("slide", defer, logger)).allowed) allowed++;
    expect(allowed).toBe(RATE_LIMIT / 2);
    // Two windows later nothing counts.
    vi.setSystemTime(23 * WINDOW_MS + 1);
    expect((await limiter.limit("slide", defer, logger)).remaining).toBe(RATE_LIMIT - 1);
  });
});
