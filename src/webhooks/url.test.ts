import { describe, expect, it } from "vitest";
import { MAX_WEBHOOK_URL_LENGTH, webhookUrlProblem } from "./url";

const production = { allowLocalHttp: false };
const local = { allowLocalHttp: true };

describe("webhook URL rules", () => {
  it.each([
    "https://hooks.example.com/crm",
    "https://hooks.example.com:8443/crm?team=7#x",
    "https://93.184.215.14/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://xn--bcher-kva.example/hook",
  ])("accepts %s in production", (url) => {
    expect(webhookUrlProblem(url, production)).toBeNull();
  });

  it.each([
    ["not a url", /valid absolute URL/],
    ["/relative/path", /valid absolute URL/],
    ["ftp://files.example.com/x", /https:\/\//],
    ["http://hooks.example.com/crm", /https:\/\//],
    ["https://user:pass@hooks.example.com/", /credentials/],
    ["https://token@hooks.example.com/", /credentials/],
    // Private, shared, loopback, link-local (cloud metadata), unspecified, broadcast, multicast, reserved.
    ["https://10.1.2.3/", /private/],
    ["https://172.16.0.1/", /private/],
    ["https://172.31.255.255/", /private/],
    ["https://192.168.1.10/", /private/],
    ["https://100.64.0.1/", /shared/],
    ["https://127.0.0.1/", /loopback/],
    ["https://127.8.9.10:8443/", /loopback/],
    ["https://169.254.169.254/latest/meta-data/", /link-local/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://255.255.255.255/", /broadcast/],
    ["https://224.0.0.1/", /multicast/],
    ["https://240.0.0.1/", /reserved/],
    // Other spellings of 127.0.0.1 / 169.254.169.254 that WHATWG URL parsing turns into dotted decimal.
    ["https://2130706433/", /loopback/],
    ["https://0x7f.1/", /loopback/],
    ["https://0177.0.0.1/", /loopback/],
    ["https://127.1/", /loopback/],
    ["https://0xa9fea9fe/", /link-local/],
    ["https://%31%32%37.0.0.1/", /loopback/],
    // IPv6: loopback, unspecified, link-local, unique-local, and IPv4-mapped forms of private addresses.
    ["https://[::1]/", /loopback/],
    ["https://[::]/", /unspecified/],
    ["https://[fe80::1]/", /link-local/],
    ["https://[fd00::1]/", /unique-local/],
    ["https://[fc00::1]/", /unique-local/],
    ["https://[::ffff:127.0.0.1]/", /loopback/],
    ["https://[::ffff:169.254.169.254]/", /link-local/],
    ["https://[::ffff:10.0.0.1]/", /private/],
    ["https://[::127.0.0.1]/", /IPv4-compatible/],
    ["https://[64:ff9b::7f00:1]/", /reserved/],
    // Local names.
    ["https://localhost/", /local host/],
    ["https://LOCALHOST./", /local host/],
    ["https://api.localhost/", /local host/],
    ["https://printer.local/", /local host/],
    ["https://metadata.google.internal/", /local host/],
    ["https://intranet/", /public host/],
  ])("refuses %s in production", (url, reason) => {
    expect(webhookUrlProblem(url, production)).toMatch(reason);
  });

  it("refuses a URL longer than the limit", () => {
    expect(webhookUrlProblem(`https://hooks.example.com/${"a".repeat(MAX_WEBHOOK_URL_LENGTH)}`, production)).toMatch(/at most/);
  });

  it("the local allowance admits exactly 127.0.0.1 and localhost, over http or https", () => {
    for (const url of ["http://127.0.0.1:4000/hook", "http://localhost:4000/hook", "http://127.0.0.1/", "https://localhost:8443/x"]) {
      expect(webhookUrlProblem(url, local), url).toBeNull();
      expect(webhookUrlProblem(url, production), url).not.toBeNull();
    }
    for (const url of [
      "http://127.0.0.2:4000/",
      "http://2130706433:4000/",
      "http://0x7f.1/",
      "http://127.1/",
      "http://[::1]:4000/",
      "http://api.localhost:4000/",
      "http://10.0.0.1/",
    ]) {
      expect(webhookUrlProblem(url, local), url).not.toBeNull();
    }
    expect(webhookUrlProblem("http://hooks.example.com/", local)).toMatch(/http:\/\/ is allowed only for 127.0.0.1 and localhost/);
    expect(webhookUrlProblem("http://user:pw@127.0.0.1:4000/", local)).toMatch(/credentials/);
  });
});
