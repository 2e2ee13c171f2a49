/**
 * Where webhook deliveries may go (a minimal stand-in: the endpoints resource's URL rules replace this
 * file, with the same signature). Checked when an endpoint is saved and again before every attempt.
 * https only, to a public host: loopback, private, link-local and other special-purpose addresses are
 * refused (no request forgery against the Worker's network). `allowLocalHttp` (the local stack and
 * tests) also allows http:// to 127.0.0.1, [::1] and localhost.
 */

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** IPv4 literal → its four octets, or undefined. */
function ipv4(host: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m ? m.slice(1).map(Number) : undefined;
}

function specialIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** A bracketed IPv6 literal that is not a global unicast address (loopback, unspecified, ULA, link-local, mapped IPv4). */
function specialIpv6(host: string): boolean {
  if (!host.startsWith("[")) return false;
  const h = host.slice(1, -1).toLowerCase();
  return h === "::" || h === "::1" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith("::ffff:") || h.startsWith("ff");
}

/** Why `url` may not receive deliveries, or null when it may. */
export function webhookUrlProblem(url: string, opts: { allowLocalHttp: boolean }): string | null {
  const { allowLocalHttp } = opts;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid URL";
  }
  const host = parsed.hostname.toLowerCase();
  if (parsed.username || parsed.password) return "URLs with credentials are not allowed";
  if (allowLocalHttp && LOCAL_NAMES.has(host) && (parsed.protocol === "http:" || parsed.protocol === "https:")) return null;
  if (parsed.protocol !== "https:") return "must be an https:// URL";
  const v4 = ipv4(host);
  if ((v4 && specialIpv4(v4)) || specialIpv6(host) || host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) {
    return "private, loopback and link-local addresses are not allowed";
  }
  return null;
}
