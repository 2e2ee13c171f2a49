import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  apiUrl,
  errorEnvelope,
  expectError,
  freshClientAddress,
  newCompany,
  sql,
  type TestCompany,
  waitFor,
  workerLogLines,
} from "../../../../test/support/api";
import { holdRow } from "../../../../test/support/locks";
import { newOrder } from "../../../../test/support/orders";

/** The site's origin (the public page is outside the API's prefix). */
const origin = () => new URL(apiUrl()).origin;

/** An order with two artworks and an item (total 100.00). */
async function orderWithArtworks(co: TestCompany) {
  const { project } = await newOrder(co);
  const front = (
    await co.post(`/orders/${project.id}/artworks`, {
      print_method: "screen_print",
      placements: ["front"],
      preview_url: "https://cdn.example/front.png",
    })
  ).body.artwork;
  const back = (await co.post(`/orders/${project.id}/artworks`, { print_method: "embroidery", placements: ["left_chest"] })).body.artwork;
  await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 10, unit_price: "10.00" });
  return { orderId: project.id as number, front, back };
}

async function ask(co: TestCompany, orderId: number, body: Record<string, unknown>) {
  const res = await co.post(`/orders/${orderId}/approvals`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { approval: any; url: string };
}

/** The public page: GET, or POST of a form (with the cookie and CSRF token of a GET before it). */
async function page(url: string) {
  const res = await fetch(url, { redirect: "manual" });
  return { status: res.status, headers: res.headers, html: await res.text(), cookie: res.headers.get("set-cookie")?.split(";")[0] ?? "" };
}
async function answer(url: string, fields: Record<string, string>) {
  return post(url, await page(url), fields);
}
async function post(url: string, first: Awaited<ReturnType<typeof page>>, fields: Record<string, string>) {
  const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(first.html)?.[1] ?? "none";
  const res = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: first.cookie },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

/** A link token of the right shape that no approval has (a fresh one each time). */
const newLinkToken = () => randomBytes(32).toString("base64url");
/** An answer's POST from the client `ip` (no CSRF token: the throttle counts it before anything else). */
const answerFrom = (ip: string): RequestInit => ({
  method: "POST",
  redirect: "manual",
  headers: { "cf-connecting-ip": ip, "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ answer: "approve", name: "Maya" }).toString(),
});

/**
 * `n` requests from one new client address about one new link (`send(ip, link)`; a sender may use a link
 * of its own per request): the first n − 1 `concurrency` at a time, the last alone, so it is the one past
 * a limit of n − 1. Answers their statuses and the last answer's headers. The limiter's windows are fixed
 * minutes, so a run that crossed into the next minute (which resets the counts) is done again, from a new
 * address and link.
 */
async function inOneMinute(
  n: number,
  concurrency: number,
  send: (ip: string, link: string) => Promise<Response>,
): Promise<{ statuses: number[]; last: Headers }> {
  const minute = () => Math.floor(Date.now() / 60_000);
  for (;;) {
    const ip = freshClientAddress();
    const link = `${origin()}/approve/${newLinkToken()}`;
    let last = new Headers();
    const status = async () => {
      const res = await send(ip, link);
      await res.arrayBuffer();
      last = res.headers;
      return res.status;
    };
    const started = minute();
    const statuses: number[] = [];
    while (statuses.length < n - 1) {
      const batch = Math.min(concurrency, n - 1 - statuses.length);
      statuses.push(...(await Promise.all(Array.from({ length: batch }, status))));
    }
    statuses.push(await status());
    if (minute() === started) return { statuses, last };
  }
}

describe("proof approvals over the API", () => {
  it("asks, lists, reads and shows the state on the order; the token is stored only as a digest", async () => {
    const co = await newCompany();
    const { orderId, front, back } = await orderWithArtworks(co);
    const created = await ask(co, orderId, { artwork_ids: [front.id, back.id], include_total: true, message: "Your proof" });
    expect(created.url).toMatch(new RegExp(`^${origin()}/approve/[A-Za-z0-9_-]{43}$`));
    expect(created.approval).toMatchObject({
      order_id: orderId,
      status: "pending",
      include_total: true,
      total: "100.00",
      message: "Your proof",
    });
    expect(created.approval.artworks.map((a: any) => a.id)).toEqual([front.id, back.id]);
    const token = created.url.split("/").pop()!;
    const [stored] = await sql<{ token_digest: string }>("select token_digest from approvals where id = $1", [created.approval.id]);
    expect(stored.token_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await sql("select * from approvals where id = $1", [created.approval.id]))).not.toContain(token);

    const got = await co.get(`/approvals/${created.approval.id}`);
    expect(got.body.approval).toEqual(created.approval);
    expect(JSON.stringify(got.body)).not.toContain(token);
    const list = await co.get(`/orders/${orderId}/approvals`);
    expect(list.body.data).toEqual([created.approval]);
    expect((await co.get(`/orders/${orderId}/approvals?status=approved`)).body.data).toEqual([]);
    const order = await co.get(`/orders/${orderId}`);
    expect(order.body.artworks.map((a: any) => a.approval?.status)).toEqual(["pending", "pending"]);
    expect(order.body.artworks[0].approval.id).toBe(created.approval.id);

    // The events: requested, with the approval, never the link.
    const events = await waitFor(
      "approval.requested with its payload",
      () =>
        sql<{ type: string; payload: any }>(
          "select type, payload from webhook_events where company_id = $1 and resource_type = 'approval'",
          [co.companyId],
        ),
      (rows) => rows.length === 1 && rows[0].payload !== null,
    );
    expect(events[0].type).toBe("approval.requested");
    expect(events[0].payload.data.object).toEqual(created.approval);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it("bad input names the field: unknown or foreign artworks, duplicates, past expiry; nothing written", async () => {
    const a = await newCompany();
    const { orderId, front } = await orderWithArtworks(a);
    const other = await orderWithArtworks(a);
    const cases: [unknown, string][] = [
      [{ artwork_ids: [other.front.id] }, "artwork_ids.0"],
      [{ artwork_ids: [front.id, 2147483000] }, "artwork_ids.1"],
      [{ artwork_ids: [] }, "artwork_ids"],
      [{ artwork_ids: [front.id, front.id] }, "artwork_ids"],
      [{ artwork_ids: [front.id], expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
      [{ artwork_ids: [front.id], token: "x" }, "token"],
    ];
    for (const [body, field] of cases) {
      const err = expectError(await a.post(`/orders/${orderId}/approvals`, body), 400, "invalid_request");
      expect(
        err.details.map((d: any) => d.field),
        JSON.stringify(body),
      ).toEqual([field]);
    }
    expect(await sql("select id from approvals where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("company B never sees, lists or revokes A's approvals, nor asks on A's order: the answers for rows that do not exist", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { orderId, front } = await orderWithArtworks(a);
    const { approval } = await ask(a, orderId, { artwork_ids: [front.id] });
    const pairs = [
      [await b.get(`/approvals/${approval.id}`), await b.get("/approvals/2147483000")],
      [await b.post(`/approvals/${approval.id}/revoke`), await b.post("/approvals/2147483000/revoke")],
      [await b.get(`/orders/${orderId}/approvals`), await b.get("/orders/2147483000/approvals")],
      [
        await b.post(`/orders/${orderId}/approvals`, { artwork_ids: [front.id] }),
        await b.post("/orders/2147483000/approvals", { artwork_ids: [front.id] }),
      ],
    ];
    for (const [theirs, none] of pairs) {
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(errorEnvelope(theirs, { ...none.body.error, request_id: undefined }));
    }
    expect((await a.get(`/approvals/${approval.id}`)).body.approval.status).toBe("pending");
    expect(await sql("select count(*)::int n from approvals where company_id = $1", [b.companyId])).toEqual([{ n: 0 }]);
  });

  it("a changed artwork, or a changed total, makes a pending approval stale; the page refuses an answer", async () => {
    const co = await newCompany();
    const { orderId, front, back } = await orderWithArtworks(co);
    const art = await ask(co, orderId, { artwork_ids: [front.id] });
    const total = await ask(co, orderId, { artwork_ids: [back.id], include_total: true });
    const untouched = await ask(co, orderId, { artwork_ids: [back.id] });
    await co.patch(`/orders/${orderId}/artworks/${front.id}`, { colors: ["Black"] });
    await co.post(`/orders/${orderId}/items`, { title: "Setup", quantity: 1, unit_price: "25.00" });
    expect((await co.get(`/approvals/${art.approval.id}`)).body.approval.status).toBe("stale");
    expect((await co.get(`/approvals/${total.approval.id}`)).body.approval.status).toBe("stale");
    expect((await co.get(`/approvals/${untouched.approval.id}`)).body.approval.status).toBe("pending");
    const stale = await co.get(`/orders/${orderId}/approvals?status=stale`);
    expect(stale.body.data.map((x: any) => x.id).sort()).toEqual([art.approval.id, total.approval.id].sort());

    const shown = await page(art.url);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('data-testid="stale"');
    expect(shown.html).not.toContain('data-testid="approve-form"');
    const refused = await answer(art.url, { answer: "approve", name: "Maya" });
    expect(refused.status).toBe(409);
    expect((await co.get(`/approvals/${art.approval.id}`)).body.approval).toMatchObject({ status: "stale", responder_name: null });
  });

  it("one answer per approval: of concurrent answers exactly one wins, and the page then shows it", async () => {
    const co = await newCompany();
    const { orderId, front } = await orderWithArtworks(co);
    const { approval, url } = await ask(co, orderId, { artwork_ids: [front.id] });
    const before = (await co.get(`/orders/${orderId}`)).headers.get("etag");
    // Three forms loaded while it is pending, posted while the test holds the approval's row: every
    // answer has read it pending and waits at its write; released, exactly one write may go through.
    const forms = await Promise.all([0, 1, 2].map(() => page(url)));
    const held = await holdRow("approvals", approval.id);
    const fields: Record<string, string>[] = [
      { answer: "approve", name: "Maya", email: "maya@example.com" },
      { answer: "changes", comment: "Bigger logo" },
      { answer: "approve", name: "Sam" },
    ];
    const posting = Promise.all(forms.map((form, i) => post(url, form, fields[i])));
    await held.blocked(3);
    await held.release();
    const answers = await posting;
    // Each POST redirects (303) to the page, which shows the answer that won.
    expect(answers.map((r) => r.status)).toEqual([303, 303, 303]);
    const [row] = await sql<{ status: string; responder_name: string | null }>(
      "select status, responder_name from approvals where id = $1",
      [approval.id],
    );
    expect(["approved", "changes_requested"]).toContain(row.status);
    const events = await waitFor(
      "approval.responded",
      () =>
        sql<{ type: string; actor_type: string; actor_id: string | null; request_id: string | null }>(
          "select type, actor_type, actor_id, request_id from webhook_events where company_id = $1 and type = 'approval.responded'",
          [co.companyId],
        ),
      (rows) => rows.length >= 1,
    );
    expect(events).toHaveLength(1);
    // The customer is no user or token of the company: the answer is the system's, in the page's request.
    expect(events[0]).toMatchObject({ actor_type: "system", actor_id: null, request_id: expect.any(String) });
    const shown = await page(url);
    expect(shown.html).toContain('data-testid="answer"');
    expect(shown.html).not.toContain('data-testid="approve-form"');
    // A late POST finds it answered.
    expect((await answer(url, { answer: "approve", name: "Late" })).status).toBe(409);
    const order = await co.get(`/orders/${orderId}`);
    expect(order.headers.get("etag")).not.toBe(before);
    expect(order.body.artworks[0].approval).toMatchObject({ id: approval.id, status: row.status });
    // An answered approval cannot be revoked.
    expectError(await co.post(`/approvals/${approval.id}/revoke`), 409, "conflict");
  });

  it("a revoked, expired, wrong or missing link shows the same page; the token is not logged", async () => {
    const co = await newCompany();
    const { orderId, front } = await orderWithArtworks(co);
    const revoked = await ask(co, orderId, { artwork_ids: [front.id] });
    const expired = await ask(co, orderId, { artwork_ids: [front.id] });
    const live = await ask(co, orderId, { artwork_ids: [front.id] });
    const revoke = await co.post(`/approvals/${revoked.approval.id}/revoke`);
    expect(revoke.body.approval).toMatchObject({ status: "revoked" });
    expect((await co.post(`/approvals/${revoked.approval.id}/revoke`)).body.approval.revoked_at).toBe(revoke.body.approval.revoked_at);
    await sql("update approvals set expires_at = now() - interval '1 second' where id = $1", [expired.approval.id]);
    expect((await co.get(`/approvals/${expired.approval.id}`)).body.approval.status).toBe("expired");

    const missing = await page(`${origin()}/approve/${"A".repeat(43)}`);
    expect(missing.status).toBe(404);
    for (const url of [revoked.url, expired.url, `${origin()}/approve/short`]) {
      const shown = await page(url);
      expect(shown.status, url).toBe(404);
      expect(shown.html.replace(/nonce="[^"]*"/g, "")).toBe(missing.html);
      expect((await answer(url, { answer: "approve", name: "Maya" })).status).toBe(404);
    }
    expect((await sql("select status from approvals where id = $1", [revoked.approval.id]))[0]).toEqual({ status: "revoked" });

    const shown = await page(live.url);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("x-robots-tag")).toContain("noindex");
    expect(shown.headers.get("referrer-policy")).toBe("no-referrer");
    expect(shown.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(shown.html).toContain('<meta name="robots" content="noindex, nofollow"/>');
    const token = live.url.split("/").pop()!;
    await waitFor("the page's log line", () => workerLogLines().some((l) => l.includes('"/approve/{token}"')));
    expect(workerLogLines().filter((l) => l.includes(token))).toEqual([]);
  });

  it("throttles lookups per link through the limiter: the 61st view of one link in a minute is a 429", async () => {
    const { statuses, last } = await inOneMinute(61, 1, (ip, link) => fetch(link, { headers: { "cf-connecting-ip": ip } }));
    expect(statuses.slice(0, 60).every((s) => s === 404)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(Number(last.get("retry-after"))).toBeGreaterThan(0);
    // Another link is not affected.
    expect((await fetch(`${origin()}/approve/${newLinkToken()}`)).status).toBe(404);
  });

  it("throttles answers per client through the limiter: a client's 31st answer in a minute is a 429, on any link", async () => {
    // 30 answers from one address, each to a link of its own (one attempt per link, far under the link's 10).
    const { statuses } = await inOneMinute(31, 1, (ip) => fetch(`${origin()}/approve/${newLinkToken()}`, answerFrom(ip)));
    expect(statuses.slice(0, 30).every((s) => s === 404)).toBe(true);
    const refused = statuses[30];
    expect(refused).toBe(429);
    // Another client is not affected.
    expect((await fetch(`${origin()}/approve/${newLinkToken()}`, answerFrom(freshClientAddress()))).status).toBe(404);
  });

  it("throttles lookups per client through the limiter: a client's 301st view in a minute is a 429, on any link", async () => {
    const { statuses } = await inOneMinute(301, 20, (ip) =>
      fetch(`${origin()}/approve/${newLinkToken()}`, { headers: { "cf-connecting-ip": ip } }),
    );
    expect(statuses.slice(0, 300).every((s) => s === 404)).toBe(true);
    expect(statuses[300]).toBe(429);
    const other = await fetch(`${origin()}/approve/${newLinkToken()}`, { headers: { "cf-connecting-ip": freshClientAddress() } });
    expect(other.status).toBe(404);
  });

  it("an answer without its CSRF token, or without a name, writes nothing", async () => {
    const co = await newCompany();
    const { orderId, front } = await orderWithArtworks(co);
    const { approval, url } = await ask(co, orderId, { artwork_ids: [front.id] });
    const forged = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "answer=approve&name=Eve",
    });
    expect(forged.status).toBe(403);
    expect((await answer(url, { answer: "approve", name: "  " })).status).toBe(400);
    expect((await answer(url, { answer: "changes", comment: "" })).status).toBe(400);
    expect((await sql("select status from approvals where id = $1", [approval.id]))[0]).toEqual({ status: "pending" });
    const ok = await answer(url, { answer: "changes", comment: "Make the logo bigger", name: "Maya" });
    expect(ok.status).toBe(303);
    expect((await co.get(`/approvals/${approval.id}`)).body.approval).toMatchObject({
      status: "changes_requested",
      comment: "Make the logo bigger",
      responder_name: "Maya",
    });
  });
});
