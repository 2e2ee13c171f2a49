import { describe, expect, it } from "vitest";
import { expectError, newCompany, sql } from "../../../test/support/api";

describe("conditional requests on /clients/{id}", () => {
  it("GET answers a strong ETag; If-None-Match (list, weak form, *) answers 304 without a body", async () => {
    const a = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Tagged" })).body.client;
    const first = await a.get(`/clients/${id}`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await a.get(`/clients/${id}`)).headers.get("etag")).toBe(etag);
    for (const value of [etag, `"other", ${etag}`, `W/${etag}`, "*"]) {
      const res = await a.get(`/clients/${id}`, { headers: { "if-none-match": value } });
      expect(res.status, value).toBe(304);
      expect(res.body).toBe("");
      expect(res.headers.get("etag")).toBe(etag);
    }
    expect((await a.get(`/clients/${id}`, { headers: { "if-none-match": '"stale"' } })).status).toBe(200);
  });

  it("PATCH changes the ETag, answers the new one (same as GET), and a stale If-Match is 412 writing nothing", async () => {
    const a = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Old" })).body.client;
    const before = (await a.get(`/clients/${id}`)).headers.get("etag")!;
    const res = await a.patch(`/clients/${id}`, { company_name: "New" }, { headers: { "if-match": before } });
    expect(res.status).toBe(200);
    const after = res.headers.get("etag")!;
    expect(after).not.toBe(before);
    expect((await a.get(`/clients/${id}`)).headers.get("etag")).toBe(after);
    expect((await a.get(`/clients/${id}`, { headers: { "if-none-match": before } })).status).toBe(200);

    const err = expectError(
      await a.patch(`/clients/${id}`, { company_name: "Lost" }, { headers: { "if-match": before } }),
      412,
      "invalid_request",
    );
    expect(err.details).toEqual({ etag: after });
    // Weak tags never match If-Match (strong comparison).
    expectError(
      await a.patch(`/clients/${id}`, { company_name: "Lost" }, { headers: { "if-match": `W/${after}` } }),
      412,
      "invalid_request",
    );
    // A soft delete is a conditional write too.
    expectError(await a.patch(`/clients/${id}`, { deleted: true }, { headers: { "if-match": before } }), 412, "invalid_request");
    const [row] = await sql("select company_name, deleted_at from clients where id = $1", [id]);
    expect(row).toEqual({ company_name: "New", deleted_at: null });
    expect((await a.patch(`/clients/${id}`, { phone: "1" }, { headers: { "if-match": `"x", ${after}` } })).status).toBe(200);
    expect((await a.patch(`/clients/${id}`, { phone: "2" }, { headers: { "if-match": "*" } })).status).toBe(200);
    expectError(await a.patch(`/clients/${id}`, { phone: "3" }, { headers: { "if-match": "not-a-tag" } }), 400, "invalid_request");
  });

  it("two PATCHes with the same If-Match: exactly one wins", async () => {
    const a = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Race" })).body.client;
    const etag = (await a.get(`/clients/${id}`)).headers.get("etag")!;
    const results = await Promise.all(
      ["One", "Two", "Three", "Four"].map((name) => a.patch(`/clients/${id}`, { company_name: name }, { headers: { "if-match": etag } })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(3);
    const [row] = await sql("select company_name from clients where id = $1", [id]);
    expect(row!.company_name).toBe(winners[0]!.body.client.company_name);
  });

  it("another company's ETag-conditioned requests are 404, as for a missing client", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Mine" })).body.client;
    const etag = (await a.get(`/clients/${id}`)).headers.get("etag")!;
    expectError(await b.get(`/clients/${id}`, { headers: { "if-none-match": etag } }), 404, "not_found");
    expectError(await b.patch(`/clients/${id}`, { company_name: "Theirs" }, { headers: { "if-match": etag } }), 404, "not_found");
    expectError(await b.patch(`/clients/${id}`, { company_name: "Theirs" }, { headers: { "if-match": "*" } }), 404, "not_found");
    expectError(await b.patch(`/clients/999999999`, { company_name: "None" }, { headers: { "if-match": etag } }), 404, "not_found");
    expect((await a.get(`/clients/${id}`)).body.client.company_name).toBe("Mine");
  });
});
