import { scryptAsync } from "@noble/hashes/scrypt.js";

/**
 * Password hashing: scrypt from @noble/hashes (pure JavaScript: workerd forbids compiling WebAssembly
 * at run time and caps WebCrypto's PBKDF2 at 100,000 iterations). Parameters: OWASP's scrypt
 * equivalent N=2^14, r=8, p=5 (16 MiB of memory, within a Worker's 128 MB), 16-byte salt, 32-byte key.
 * The stored text names its parameters, so they can be raised later and old hashes still verify.
 * CPU per hash: docs/settings.md#passwords.
 */
export const SCRYPT = { logN: 14, r: 8, p: 5, dkLen: 32 } as const;

/** NIST 800-63B: at least 12 here (ASVS 2.1.1), at most 128 (ASVS 2.1.2); any characters. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

const encoder = new TextEncoder();

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, logN: number, r: number, p: number): Promise<Uint8Array> {
  // asyncTick: yields to the isolate's other requests every 10 ms of work.
  return scryptAsync(encoder.encode(password.normalize("NFKC")), salt, {
    N: 2 ** logN,
    r,
    p,
    dkLen: SCRYPT.dkLen,
    asyncTick: 10,
    maxmem: 2 ** 25,
  });
}

/** What is wrong with a chosen password, or undefined. */
export function passwordProblem(password: string, confirmation?: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Choose a password of at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `Choose a password of at most ${PASSWORD_MAX} characters.`;
  if (confirmation !== undefined && confirmation !== password) return "The two passwords do not match.";
  return undefined;
}

/** `scrypt$<logN>$<r>$<p>$<salt>$<key>` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(password, salt, SCRYPT.logN, SCRYPT.r, SCRYPT.p);
  return ["scrypt", SCRYPT.logN, SCRYPT.r, SCRYPT.p, toBase64(salt), toBase64(key)].join("$");
}

/**
 * A hash no password matches (its key is all zeros), verified in place of a missing user's or a user's
 * without a password yet, so an unknown address costs the same work as a wrong password.
 */
const DUMMY_HASH = ["scrypt", SCRYPT.logN, SCRYPT.r, SCRYPT.p, toBase64(new Uint8Array(16)), toBase64(new Uint8Array(32))].join("$");

/** True when `password` matches `stored`; `stored` undefined or null: the same work, then false. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY_HASH).split("$");
  const valid = parts.length === 6 && parts[0] === "scrypt";
  const [, logN, r, p, salt, key] = valid ? parts : DUMMY_HASH.split("$");
  const expected = fromBase64(key);
  const actual = await derive(password, fromBase64(salt), Number(logN), Number(r), Number(p));
  let diff = expected.length ^ actual.length;
  for (let i = 0; i < actual.length; i++) diff |= actual[i] ^ (expected[i] ?? 0);
  return valid && stored != null && diff === 0;
}
