import ipaddr from "ipaddr.js";

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Hosts the local-http allowance (`WEBHOOK_ALLOW_LOCAL_HTTP`) lets through, over http:// or https://. */
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);

/** Names that only resolve inside a machine or a private network. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal)$/;

const RANGE_NAMES: Record<string, string> = {
  private: "a private (RFC 1918)",
  loopback: "a loopback",
  linkLocal: "a link-local",
  uniqueLocal: "a unique-local",
  carrierGradeNat: "a shared (carrier-grade NAT)",
  unspecified: "an unspecified",
  broadcast: "a broadcast",
  multicast: "a multicast",
};

/**
 * Why `raw` cannot be a webhook endpoint URL, or null when it can. Checked when an endpoint is created
 * or changed and again before every delivery attempt (the setting may have changed since).
 *
 * Every spelling of an IPv4 address (`http://2130706433`, `http://0x7f.1`, `http://0177.0.0.1`) is judged
 * as the address it is (127.0.0.1 here), as WHATWG URL parsing and fetch() read it. Production rules: https:// only; no credentials in the URL;
 * no IP literal outside the public unicast space (private, loopback, link-local with the cloud metadata
 * address, shared, unique-local, unspecified, reserved; IPv4-mapped IPv6 judged as its IPv4); no
 * `localhost`, `*.localhost`, `*.local` or `*.internal` name. `allowLocalHttp` (the local stack and tests)
 * admits exactly `http(s)://127.0.0.1[:port]` and `http(s)://localhost[:port]` besides.
 * A public name that resolves to a private address is not seen here: the Worker cannot resolve names.
 */
export function webhookUrlProblem(raw: string, opts: { allowLocalHttp: boolean }): string | null {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return `Must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Not a valid absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Must be an https:// URL";
  if (url.username || url.password) return "Must not carry credentials (user:password@)";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (opts.allowLocalHttp && LOCAL_HOSTS.has(host) && LOCAL_HOSTS.has(writtenHost(raw))) return null;
  if (url.protocol !== "https:") {
    return opts.allowLocalHttp
      ? "Must be an https:// URL (http:// is allowed only for 127.0.0.1 and localhost on this deployment)"
      : "Must be an https:// URL";
  }
  if (host.includes("%")) return "Must name its host plainly (no percent-encoding)";
  if (host.startsWith("[")) {
    const ip = host.slice(1, -1);
    return ipaddr.IPv6.isValid(ip) ? addressProblem(ipaddr.IPv6.parse(ip)) : "Not a valid IPv6 address";
  }
  // A host ending in a number is an IPv4 address in one of its spellings (decimal, octal, hex, short
  // forms): parsed here as fetch() parses it, whether or not the URL parser in use normalized it.
  if (/(^|\.)(\d+|0x[0-9a-f]*)$/.test(host)) {
    return ipaddr.IPv4.isValid(host) ? addressProblem(ipaddr.IPv4.parse(host)) : "Not a valid IPv4 address";
  }
  if (LOCAL_NAME.test(host)) return "Must not name a local host (localhost, *.localhost, *.local, *.internal)";
  if (!host.includes(".")) return "Must name a public host (a fully qualified domain name)";
  return null;
}

/** The host as written in the URL (the parser turns other spellings, such as 2130706433, into 127.0.0.1). */
const writtenHost = (raw: string) => /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#:]*)/i.exec(raw.trim())?.[1].toLowerCase() ?? "";

function addressProblem(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  // ::ffff:a.b.c.d reaches a.b.c.d: judge the IPv4 address it carries.
  const ip =
    address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  const range = ip.range();
  if (range !== "unicast") return `Must not be ${RANGE_NAMES[range] ?? "a reserved"} address: only public hosts can receive webhooks`;
  // ::a.b.c.d (IPv4-compatible, deprecated) is unicast to ipaddr.js but may still reach a.b.c.d.
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return "Must not be an IPv4-compatible IPv6 address: only public hosts can receive webhooks";
  }
  return null;
}
