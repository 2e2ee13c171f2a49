/**
 * Smoke test of a deployed Worker, from outside, the way an integration sees it:
 * `npm run smoke -- https://crm-api-production.example.workers.dev` (SMOKE_TOKEN optional).
 * The preview workflow runs it against each pull request's preview URL, the deploy workflow
 * against production; its own tests run it against the Worker the test suite starts.
 */

import { API_PREFIX } from "../../src/http/api-prefix";

export interface SmokeCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SmokeOptions {
  /** A token of some company: adds the authenticated check (database + rate limiter). */
  token?: string;
  /** How long the first check keeps retrying while a fresh deployment propagates. */
  waitMs?: number;
  /** Per request. */
  timeoutMs?: number;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  json: any;
}

async function get(url: string, timeoutMs: number, token?: string): Promise<Answer> {
  const res = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const describe = (a: Answer) => `HTTP ${a.status}: ${a.text.slice(0, 200).replace(/\s+/g, " ")}`;

/** Each check: a request and what a healthy deployment answers. Failing checks say why. */
function checks(origin: string, token: string | undefined) {
  const api = `${origin}${API_PREFIX}`;
  const list: { name: string; url: string; token?: string; verdict(a: Answer): string | undefined }[] = [
    {
      name: "docs page (no token)",
      url: `${api}/docs`,
      verdict: (a) =>
        a.status !== 200
          ? describe(a)
          : /<html/i.test(a.text) && a.text.includes("openapi.json")
            ? undefined
            : "200 but not the API reference page",
    },
    {
      name: "OpenAPI document (no token)",
      url: `${api}/openapi.json`,
      verdict: (a) =>
        a.status !== 200
          ? describe(a)
          : a.json?.openapi !== "3.1.0"
            ? "200 but not an OpenAPI 3.1 document"
            : a.json?.servers?.[0]?.url !== api
              ? `servers[0].url is ${JSON.stringify(a.json?.servers?.[0]?.url)}, expected ${api}`
              : undefined,
    },
    {
      name: "API refuses a request without a token",
      url: `${api}/clients`,
      verdict: (a) =>
        a.status === 401 && a.json?.error?.code === "unauthenticated" ? undefined : `expected 401 unauthenticated, got ${describe(a)}`,
    },
  ];
  if (token) {
    list.push({
      name: "authenticated request (database and rate limiter)",
      url: `${api}/clients?per_page=1`,
      token,
      verdict: (a) =>
        a.status !== 200
          ? describe(a)
          : !Array.isArray(a.json?.data)
            ? "200 but no data array"
            : // The limiter omits its headers when it fails open: Upstash is not reachable or not configured.
              !a.headers.get("x-ratelimit-limit")
              ? "no X-RateLimit-* headers: the rate limiter is failing open (check the Upstash secrets)"
              : undefined,
    });
  }
  return list;
}

export async function smokeTest(origin: string, opts: SmokeOptions = {}): Promise<SmokeCheck[]> {
  const base = origin.replace(/\/+$/, "");
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  const results: SmokeCheck[] = [];
  for (const [i, check] of checks(base, opts.token).entries()) {
    let problem: string | undefined;
    for (;;) {
      try {
        problem = check.verdict(await get(check.url, timeoutMs, check.token));
      } catch (e) {
        problem = `no answer: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`;
      }
      // Only the first check waits: a new version URL can answer 404 / not at all for a few seconds.
      if (!problem || i > 0 || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    results.push({ name: check.name, ok: !problem, detail: problem ?? "ok" });
  }
  return results;
}

async function main(argv: string[]): Promise<number> {
  const origin = argv[0];
  if (!origin || !/^https?:\/\//.test(origin)) {
    console.error("usage: npm run smoke -- <origin, e.g. https://crm-api-production.example.workers.dev>  (SMOKE_TOKEN=... optional)");
    return 2;
  }
  const results = await smokeTest(origin, { token: process.env.SMOKE_TOKEN || undefined });
  for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : ` — ${r.detail}`}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(JSON.stringify({ origin, passed: results.length - failed, failed }));
  return failed ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
