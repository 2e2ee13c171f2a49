import { timingSafeEqual } from "hono/utils/buffer";
import { sha256Hex } from "../http/auth";

/** 32 random bytes as 64 hex characters: a session, setup link or CSRF secret. */
export function randomSecret(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What the database keeps of a secret: its SHA-256 digest (hex), as for API tokens. */
export const digest = (secret: string) => sha256Hex(secret);

/**
 * The CSRF token for a cookie's secret: a digest of it under its own label (the database keeps another
 * digest of the session secret, so a leaked row gives no CSRF token). A page on another origin cannot
 * read the cookie, so it cannot know the token.
 */
export const csrfTokenFor = (secret: string) => sha256Hex(`settings-csrf:${secret}`);

/** Constant-time comparison of two tokens. */
export const sameToken = (a: string, b: string) => timingSafeEqual(a, b);
