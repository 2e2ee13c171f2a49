/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the bytes of the secret's base64 part after
 * `whsec_`. Several secrets (after a rotation) give space-separated signatures; a receiver accepts the
 * message when one of them verifies. WebCrypto, so the Worker needs no library for it.
 */

const encoder = new TextEncoder();
/** Imported keys by secret, per isolate (importKey is not free and secrets rarely change). */
const keys = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_MAX = 1000;

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (ch) => ch.charCodeAt(0));
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (keys.size >= KEY_CACHE_MAX) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

const base64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** The `webhook-signature` header value: one `v1,` signature per secret, space-separated. */
export async function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): Promise<string> {
  const data = encoder.encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(
    secrets.map(async (secret) => `v1,${base64(await crypto.subtle.sign("HMAC", await keyOf(secret), data))}`),
  );
  return signatures.join(" ");
}
