import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { expectError, newCompany, sql } from "../../../test/support/api";
import { LOCAL_RECEIVER, newEndpoint } from "../../../test/support/webhooks";
import { startWorker } from "../../../test/support/worker";
import { WEBHOOK_EVENT_TYPES } from "../../resources";

describe("POST /webhook-endpoints", () => {
  it("creates an endpoint and shows its Standard Webhooks secret once", async () => {
    const a = await newCompany();
    const res = await a.post("/webhook-endpoints", {
      url: "https://hooks.example.com/crm",
      events: ["order.created", "order.updated"],
      description: "ERP sync",
    });
    expect(res.status).toBe(200);
    const { webhook_endpoint: endpoint, secret } = res.body;
    expect(endpoint).toEqual({
      id: expect.any(Number),
      url: "https://hooks.example.com/crm",
      description: "ERP sync",
      events: ["order.created", "order.updated"],
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      failure_streak: 0,
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // whsec_ + base64 of 32 random bytes.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    const [row] = await sql("select company_id, secret from webhook_endpoints where id = $1", [endpoint.id]);
    expect(row).toEqual({ company_id: a.companyId, secret });
    // Reads never show a secret.
    const read = await a.get(`/webhook-endpoints/${endpoint.id}`);
    expect(read.body.webhook_endpoint).toEqual(endpoint);
    expect(JSON.stringify(read.body)).not.toContain("whsec_");
    const list = await a.get("/webhook-endpoints");
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    // Two endpoints never share a secret.
    expect((await newEndpoint(a)).secret).not.toBe(secret);
  });

  it("accepts * alone, every catalog type, and stores duplicates once", async () => {
    const a = await newCompany();
    expect((await newEndpoint(a, { events: ["*"] })).webhook_endpoint.events).toEqual(["*"]);
    expect((await newEndpoint(a, { events: [...WEBHOOK_EVENT_TYPES] })).webhook_endpoint.events).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect((await newEndpoint(a, { events: ["client.created", "client.created"] })).webhook_endpoint.events).toEqual(["client.created"]);
  });

  it("replays the first answer, secret included, for a repeated Idempotency-Key", async () => {
    const a = await newCompany();
    const body = { url: LOCAL_RECEIVER, events: ["client.created"] };
    const headers = { "idempotency-key": "hook-create-1" };
    const first = await a.post("/webhook-endpoints", body, { headers });
    const again = await a.post("/webhook-endpoints", body, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await sql("select id from webhook_endpoints where company_id = $1", [a.companyId])).toHaveLength(1);
  });

  it.each([
    [{ events: ["*"] }, ["url"]],
    [{ url: LOCAL_RECEIVER }, ["events"]],
    [{ url: LOCAL_RECEIVER, events: [] }, ["events"]],
    [{ url: LOCAL_RECEIVER, events: ["order.created", "order.shipped"] }, ["events.1"]],
    [{ url: LOCAL_RECEIVER, events: ["*", "order.created"] }, ["events"]],
    [{ url: LOCAL_RECEIVER, events: "*" }, ["events"]],
    [{ url: LOCAL_RECEIVER, events: ["*"], secret: "whsec_mine" }, ["secret"]],
    [{ url: LOCAL_RECEIVER, events: ["*"], enabled: false }, ["enabled"]],
    [{ url: LOCAL_RECEIVER, events: ["*"], description: "x".repeat(501) }, ["description"]],
  ])("rejects %j naming %j, writing nothing", async (body, fields) => {
    const a = await newCompany();
    const err = expectError(await a.post("/webhook-endpoints", body), 400, "invalid_request");
    expect(err.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
    expect(await sql("select id from webhook_endpoints where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("names an unknown event type and lists the allowed ones", async () => {
    const a = await newCompany();
    const err = expectError(await a.post("/webhook-endpoints", { url: LOCAL_RECEIVER, events: ["order.shipped"] }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "events.0", message: expect.stringContaining("order.created") }]);
  });

  it.each([
    ["https://10.0.0.8/hook", /private/],
    ["https://169.254.169.254/latest/meta-data", /link-local/],
    ["https://2130706433/hook", /loopback/],
    ["https://0x7f.1/hook", /loopback/],
    ["https://0177.0.0.1/hook", /loopback/],
    ["https://127.1/hook", /loopback/],
    ["https://0xa9fea9fe/", /link-local/],
    ["https://[::1]:8443/", /loopback/],
    ["https://[fd12::1]/", /unique-local/],
    ["https://[::ffff:192.168.0.1]/hook", /private/],
    ["https://metadata.google.internal/", /local host/],
    ["https://user:pw@hooks.example.com/", /credentials/],
    ["http://hooks.example.com/", /https:\/\//],
    ["http://127.0.0.2:9/", /https:\/\//],
    ["not a url", /valid absolute URL/],
  ])("refuses the URL %s with a 400 naming url and saying why", async (url, reason) => {
    const a = await newCompany();
    const err = expectError(await a.post("/webhook-endpoints", { url, events: ["*"] }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "url", message: expect.stringMatching(reason) }]);
    expect(err.message).toMatch(reason);
    expect(await sql("select id from webhook_endpoints where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("accepts http://127.0.0.1 and http://localhost on the local stack (WEBHOOK_ALLOW_LOCAL_HTTP)", async () => {
    const a = await newCompany();
    expect((await newEndpoint(a, { url: "http://127.0.0.1:4567/hook" })).webhook_endpoint.url).toBe("http://127.0.0.1:4567/hook");
    expect((await newEndpoint(a, { url: "http://localhost:4567/hook" })).webhook_endpoint.url).toBe("http://localhost:4567/hook");
  });
});

describe("POST /webhook-endpoints on a deployment without WEBHOOK_ALLOW_LOCAL_HTTP", () => {
  it("refuses http://127.0.0.1 and http://localhost (production rules), and still accepts public https", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "hooks-prod-"));
    const worker = await startWorker({
      script: inject("workerScript"),
      bindings: { ...inject("workerBindings"), WEBHOOK_ALLOW_LOCAL_HTTP: "" },
      logFile: path.join(dir, "worker.log"),
    });
    try {
      const a = await newCompany();
      const baseUrl = `${worker.url}/api/v1`;
      for (const url of ["http://127.0.0.1:4567/hook", "http://localhost:4567/hook", "https://127.0.0.1:4567/hook"]) {
        const err = expectError(await a.post("/webhook-endpoints", { url, events: ["*"] }, { baseUrl }), 400, "invalid_request");
        expect(err.details, url).toEqual([{ field: "url", message: expect.stringMatching(/https:\/\/|loopback/) }]);
      }
      const ok = await a.post("/webhook-endpoints", { url: "https://hooks.example.com/x", events: ["*"] }, { baseUrl });
      expect(ok.status).toBe(200);
      // An endpoint stored while the allowance was on is refused on change under production rules.
      const local = await newEndpoint(a);
      const err = expectError(
        await a.patch(`/webhook-endpoints/${local.webhook_endpoint.id}`, { url: "http://localhost:9/x" }, { baseUrl }),
        400,
        "invalid_request",
      );
      expect(err.details[0].field).toBe("url");
    } finally {
      await worker.dispose();
    }
  });
});
