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
 * The URL is parsed as fetch() will parse it (WHATWG URL), so `http://2130706433` and `http://0x7f.1`
 * are judged as the 127.0.0.1 they become. Production rules: https:// only; no credentials in the URL;
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
  const host = url.hostname.replace(/\.$/, "");
  if (opts.allowLocalHttp && LOCAL_HOSTS.has(host)) return null;
  if (url.protocol !== "https:") {
    return opts.allowLocalHttp
      ? "Must be an https:// URL (http:// is allowed only for 127.0.0.1 and localhost on this deployment)"
      : "Must be an https:// URL";
  }
  if (host.startsWith("[")) return addressProblem(ipaddr.IPv6.parse(host.slice(1, -1)));
  // WHATWG URL has already turned every IPv4 spelling (decimal, octal, hex, short forms) into four decimals.
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return addressProblem(ipaddr.IPv4.parse(host));
  if (LOCAL_NAME.test(host)) return "Must not name a local host (localhost, *.localhost, *.local, *.internal)";
  if (!host.includes(".")) return "Must name a public host (a fully qualified domain name)";
  return null;
}

function addressProblem(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  // ::ffff:a.b.c.d reaches a.b.c.d: judge the IPv4 address it carries.
  const ip =
    address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  const range = ip.range();
  if (range === "unicast") return null;
  return `Must not be ${RANGE_NAMES[range] ?? "a reserved"} address: only public hosts can receive webhooks`;
}
