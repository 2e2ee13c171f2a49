import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectError, newCompany } from "../../../test/support/api";

const path = (id: string) => `/mail/email-threads/${encodeURIComponent(id)}?account_email=orders%40shop.example`;
const body = (subject: string) => ({ account_email: "orders@shop.example", messages: [], subject });

describe("conditional GET of an email thread", () => {
  it("PUT and GET answer the same ETag; a matching If-None-Match is 304; a PUT changes it; company B gets 404", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const id = `thr-${randomUUID()}`;
    const put = await a.put(`/mail/email-threads/${encodeURIComponent(id)}`, body("First"));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const etag = put.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await a.get(path(id))).headers.get("etag")).toBe(etag);
    const cached = await a.get(path(id), { headers: { "if-none-match": etag } });
    expect([cached.status, cached.body]).toEqual([304, ""]);
    expectError(await b.get(path(id), { headers: { "if-none-match": etag } }), 404, "not_found");

    const again = await a.put(`/mail/email-threads/${encodeURIComponent(id)}`, body("Second"));
    expect(again.headers.get("etag")).not.toBe(etag);
    const fresh = await a.get(path(id), { headers: { "if-none-match": etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.email_thread.subject).toBe("Second");
    expect(fresh.headers.get("etag")).toBe(again.headers.get("etag"));
  });
});
