import { createHash } from "node:crypto";
import { RATE_WINDOW_SECONDS } from "../../src/ratelimit";

/** The limiter's key: the token's SHA-256 digest, never the token. */
export const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** The Redis key counting this token's requests in the current fixed window (setting it high makes Redis refuse the token). */
export const windowKey = (token: string) => `crm:ratelimit:${digest(token)}:${Math.floor(Date.now() / (RATE_WINDOW_SECONDS * 1000))}`;

/**
 * Waits for the next minute when more than `latestMs` of this one has passed. The sliding window's
 * fixed minutes start on the epoch minute; past the boundary the previous minute's requests weigh less.
 */
export async function earlyInMinute(latestMs: number) {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > latestMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
}
