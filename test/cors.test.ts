import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiUrl, newCompany } from "./support/api";
import { type RunningWorker, startWorker } from "./support/worker";

const ALLOWED = "https://app.example.com";
let worker: RunningWorker;

beforeAll(async () => {
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), "crm-cors-")), "worker.log");
  worker = await startWorker({
    script: inject("workerScript"),
    bindings: { ...inject("workerBindings"), CORS_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:5173` },
    logFile,
  });
});
afterAll(async () => {
  await worker?.dispose();
});

const preflight = (base: string, origin: string) =>
  fetch(`${base}/clients`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
  });

describe("CORS", () => {
  it("is off by default: no CORS headers, and a preflight is not answered as one", async () => {
    const co = await newCompany();
    const res = await fetch(`${apiUrl()}/clients`, { headers: { origin: ALLOWED, authorization: `Bearer ${co.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await preflight(apiUrl(), ALLOWED);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("answers a preflight from an allowed origin without a token", async () => {
    const res = await preflight(`${worker.url}/api/v1`, ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("gives answers to an allowed origin the CORS headers, errors included; other origins get none", async () => {
    const co = await newCompany();
    const base = `${worker.url}/api/v1`;
    const ok = await fetch(`${base}/clients`, { headers: { origin: ALLOWED, authorization: `Bearer ${co.token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(ok.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    expect(ok.headers.get("vary")).toContain("Origin");

    const unauthenticated = await fetch(`${base}/clients`, { headers: { origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("access-control-allow-origin")).toBe(ALLOWED);

    const other = await fetch(`${base}/clients`, { headers: { origin: "https://evil.example", authorization: `Bearer ${co.token}` } });
    expect(other.status).toBe(200);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect((await preflight(base, "https://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets an allowed origin's MCP client send its headers and read a 401's resource_metadata", async () => {
    const mcp = `${worker.url}/api/v1/mcp`;
    const pre = await fetch(mcp, {
      method: "OPTIONS",
      headers: {
        origin: ALLOWED,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");
    const unauthenticated = await fetch(mcp, {
      method: "POST",
      headers: { origin: ALLOWED, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(unauthenticated.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    expect(unauthenticated.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("keeps the API's policy to the API: the OAuth endpoints answer any origin, the settings pages none", async () => {
    const metadata = await fetch(`${worker.url}/.well-known/oauth-authorization-server`, { headers: { origin: ALLOWED } });
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*");
    const token = await fetch(`${worker.url}/oauth/token`, {
      method: "OPTIONS",
      headers: { origin: ALLOWED, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(token.headers.get("access-control-allow-origin")).toBe("*");
    for (const path of ["/settings/sign-in", "/oauth/authorize"]) {
      const res = await fetch(`${worker.url}${path}`, { headers: { origin: ALLOWED }, redirect: "manual" });
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });
});
