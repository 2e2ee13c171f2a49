import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiUrl, asRequest, call, errorEnvelope, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { NUMBER_MAX_EXPANDED_LENGTH, NUMERIC_MAX_INTEGER_DIGITS, NUMERIC_MAX_SCALE } from "../../http/exact-json";
import { MAX_JSON_DEPTH } from "../../http/json-body";
import { EMAIL_THREAD_BODY_LIMIT } from "./schema";

const THREAD_FIELDS = [
  "id",
  "account_email",
  "legacy_thread_id",
  "mail_thread_id",
  "subject",
  "snippet",
  "participants",
  "labels",
  "messages",
  "message_count",
  "first_message_at",
  "last_message_at",
  "mail_history_id",
  "last_synced_at",
  "created_at",
  "updated_at",
].sort();

const newId = () => `thr-${randomUUID()}`;
const path = (id: string) => `/mail/email-threads/${encodeURIComponent(id)}`;
const put = (co: TestCompany, id: string, body: unknown) => co.put(path(id), body);
const get = (co: TestCompany, id: string, email?: string, opts?: Parameters<TestCompany["get"]>[1]) =>
  co.get(email === undefined ? path(id) : `${path(id)}?account_email=${encodeURIComponent(email)}`, opts);

const message = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `m${n}`,
  internal_date: "2026-11-21T13:37:00Z",
  from: "Maya Lopez <maya@northside.example>",
  to: ["orders@shop.example"],
  subject: `Re: hoodies ${n}`,
  snippet: `snippet ${n}`,
  body_plain: `body ${n}`,
  body_html: `<p>body ${n}</p>`,
  ...extra,
});

const rowsFor = (companyId: number, legacyId: string) =>
  sql<Record<string, any>>(
    "select *, messages::text as messages_text from email_threads where company_id = $1 and legacy_thread_id = $2 order by account_email",
    [companyId, legacyId],
  );

const fieldsOf = (err: { details: { field: string }[] }) => err.details.map((d) => d.field);

describe("PUT /mail/email-threads/{legacyThreadId}", () => {
  it("inserts: exactly the §4.5 fields, lowercase mailbox, defaults, message_count, server-time last_synced_at", async () => {
    const co = await newCompany();
    const id = newId();
    const before = Date.now();
    const res = await put(co, id, { account_email: "Orders@Shop.EXAMPLE", messages: [message(1), message(2)] });
    const after = Date.now();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.email_thread;
    expect(Object.keys(res.body)).toEqual(["email_thread"]);
    expect(Object.keys(t).sort()).toEqual(THREAD_FIELDS);
    expect(t).toMatchObject({
      account_email: "orders@shop.example",
      legacy_thread_id: id,
      mail_thread_id: null,
      subject: null,
      snippet: null,
      participants: [],
      labels: [],
      messages: [message(1), message(2)],
      message_count: 2,
      first_message_at: null,
      last_message_at: null,
      mail_history_id: null,
    });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    // Server time of the request (same machine's clock; a bound, not a speed threshold).
    const synced = Date.parse(t.last_synced_at);
    expect(synced).toBeGreaterThanOrEqual(before - 1000);
    expect(synced).toBeLessThanOrEqual(after + 1000);
    const [row] = await rowsFor(co.companyId, id);
    expect(row).toMatchObject({ account_email: "orders@shop.example", deleted: false, message_count: 2 });
  });

  it("stores every sent field and returns timestamps in UTC", async () => {
    const co = await newCompany();
    const id = newId();
    const body = {
      account_email: "orders@shop.example",
      messages: [message(1)],
      participants: ["maya@northside.example", { name: "Rep", email: "rep@shop.example" }],
      labels: ["INBOX", "Label_12"],
      subject: "Hoodies for the 5K",
      snippet: "Can we get 40 more?",
      mail_thread_id: "thread-canonical-1",
      first_message_at: "2026-11-20T08:00:00+02:00",
      last_message_at: "2026-11-21T13:37:00.5Z",
      mail_history_id: "987654",
      last_synced_at: "2026-11-21T14:00:00Z",
    };
    const res = await put(co, id, body);
    expect(res.status).toBe(200);
    expect(res.body.email_thread).toMatchObject({
      ...body,
      first_message_at: "2026-11-20T06:00:00.000Z",
      last_message_at: "2026-11-21T13:37:00.500Z",
      last_synced_at: "2026-11-21T14:00:00.000Z",
      message_count: 1,
    });
    expect((await get(co, id, body.account_email)).body).toEqual(res.body);
  });

  it("rule 2 and 3: a later PUT updates the same row, replacing what is sent whole and keeping what is not", async () => {
    const co = await newCompany();
    const id = newId();
    const first = (
      await put(co, id, {
        account_email: "orders@shop.example",
        messages: [message(1), message(2), message(3)],
        participants: ["a@x.example", "b@x.example"],
        labels: ["INBOX", "STARRED"],
        subject: "First subject",
        snippet: "first",
        mail_history_id: "1",
        first_message_at: "2026-11-20T08:00:00Z",
      })
    ).body.email_thread;

    const res = await put(co, id, {
      account_email: "orders@shop.example",
      messages: [message(9, { body_html: null })],
      labels: ["ARCHIVED"],
      snippet: null,
      mail_history_id: "2",
    });
    expect(res.status).toBe(200);
    const second = res.body.email_thread;
    expect(second.id).toBe(first.id);
    expect(second.created_at).toBe(first.created_at);
    expect(Date.parse(second.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.updated_at));
    expect(second).toMatchObject({
      messages: [message(9, { body_html: null })], // replaced, not merged
      message_count: 1,
      labels: ["ARCHIVED"], // replaced, not merged
      participants: ["a@x.example", "b@x.example"], // not sent: kept
      subject: "First subject", // not sent: kept
      first_message_at: "2026-11-20T08:00:00.000Z", // not sent: kept
      snippet: null, // sent as null: cleared
      mail_history_id: "2",
    });
    expect(await rowsFor(co.companyId, id)).toHaveLength(1);
  });

  it("rule 1: the same legacy id under another mailbox is another row; the mailbox is case-folded", async () => {
    const co = await newCompany();
    const id = newId();
    const one = (await put(co, id, { account_email: "Sales@Shop.example", messages: [message(1)] })).body.email_thread;
    const two = (await put(co, id, { account_email: "support@shop.example", messages: [message(2), message(3)] })).body.email_thread;
    expect(two.id).not.toBe(one.id);
    // Same mailbox in other letter case: updates `one`.
    const again = (await put(co, id, { account_email: "SALES@SHOP.EXAMPLE", messages: [] })).body.email_thread;
    expect(again.id).toBe(one.id);
    expect(again.account_email).toBe("sales@shop.example");
    const rows = await rowsFor(co.companyId, id);
    expect(rows.map((r) => [r.account_email, r.message_count])).toEqual([
      ["sales@shop.example", 0],
      ["support@shop.example", 2],
    ]);
    expect((await get(co, id, "sAlEs@shop.EXAMPLE")).body.email_thread.id).toBe(one.id);
    expect((await get(co, id, "support@shop.example")).body.email_thread.messages).toEqual([message(2), message(3)]);
    expectError(await get(co, id, "other@shop.example"), 404, "not_found");
  });

  it("rule 4: a PUT restores a soft-deleted thread (which GET hides until then)", async () => {
    const co = await newCompany();
    const id = newId();
    const first = (await put(co, id, { account_email: "orders@shop.example", messages: [message(1)], subject: "s" })).body.email_thread;
    await sql("update email_threads set deleted = true where id = $1", [first.id]);
    expectError(await get(co, id, "orders@shop.example"), 404, "not_found");

    const res = await put(co, id, { account_email: "orders@shop.example", messages: [message(2)] });
    expect(res.status).toBe(200);
    expect(res.body.email_thread.id).toBe(first.id);
    expect(res.body.email_thread).not.toHaveProperty("deleted");
    expect((await rowsFor(co.companyId, id))[0].deleted).toBe(false);
    expect((await get(co, id, "orders@shop.example")).body).toEqual(res.body);
  });

  it("rule 5 and 6: message_count is the length of messages, stored as sent without per-message validation", async () => {
    const co = await newCompany();
    const id = newId();
    const odd = [
      message(1),
      {},
      null,
      42,
      "a bare string",
      [1, [2, [3]]],
      { id: 7, to: "not-an-array", body_html: null, nested: { deep: { deeper: [true, false, null] } } },
      { "key with spaces": "é 日本語 🎉 \u2028", "": "empty key", big: 12345678901234, neg: -0.5 },
    ];
    const res = await put(co, id, { account_email: "orders@shop.example", messages: odd });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.email_thread.message_count).toBe(odd.length);
    expect(res.body.email_thread.messages).toEqual(odd);
    expect((await get(co, id, "orders@shop.example")).body.email_thread.messages).toEqual(odd);
    expect(JSON.parse((await rowsFor(co.companyId, id))[0].messages_text)).toEqual(odd);

    const empty = await put(co, id, { account_email: "orders@shop.example", messages: [] });
    expect(empty.body.email_thread).toMatchObject({ messages: [], message_count: 0 });
  });

  it("rejects bad bodies with 400 naming the fields, writing nothing", async () => {
    const co = await newCompany();
    const id = newId();
    const ok = { account_email: "orders@shop.example", messages: [] };
    const cases: [unknown, string[]][] = [
      [{ messages: [] }, ["account_email"]],
      [{ ...ok, account_email: "not-an-email" }, ["account_email"]],
      [{ ...ok, account_email: "" }, ["account_email"]],
      [{ ...ok, account_email: 5 }, ["account_email"]],
      [{ account_email: ok.account_email }, ["messages"]],
      [{ ...ok, messages: null }, ["messages"]],
      [{ ...ok, messages: { 0: message(1) } }, ["messages"]],
      [{ ...ok, messages: "[]" }, ["messages"]],
      [{ ...ok, participants: "a@x.example" }, ["participants"]],
      [{ ...ok, labels: null }, ["labels"]],
      [{ ...ok, subject: 5 }, ["subject"]],
      [{ ...ok, first_message_at: "2026-11-21" }, ["first_message_at"]],
      [{ ...ok, last_message_at: "yesterday" }, ["last_message_at"]],
      [{ ...ok, last_synced_at: "2026-02-30T00:00:00Z" }, ["last_synced_at"]],
      [{ ...ok, last_synced_at: null }, ["last_synced_at"]],
      [{ ...ok, first_message_at: 1763732220000 }, ["first_message_at"]],
      [{ ...ok, message_count: 3 }, ["message_count"]],
      [{ ...ok, deleted: true, id: "x" }, ["deleted", "id"]],
      [{ ...ok, messages: [{ body_plain: "nul \u0000 here" }] }, ["messages.0.body_plain"]],
      [{ ...ok, messages: [{ "k\u0000": 1 }] }, ["messages.0"]],
      [{ ...ok, subject: "\u0000" }, ["subject"]],
    ];
    for (const [body, fields] of cases) {
      const err = expectError(await put(co, id, body), 400, "invalid_request");
      expect(fieldsOf(err), JSON.stringify(body)).toEqual(fields);
    }
    // The company id comes from the token only.
    expect(fieldsOf(expectError(await put(co, id, { ...ok, company_id: 1 }), 400, "invalid_request"))).toEqual(["company_id"]);
    // Path id too long.
    expect(fieldsOf(expectError(await put(co, "x".repeat(256), ok), 400, "invalid_request"))).toEqual(["legacyThreadId"]);
    expect(await rowsFor(co.companyId, id)).toEqual([]);
  });

  it(`accepts JSON nested ${MAX_JSON_DEPTH} levels and refuses deeper with 400 (never a 500)`, async () => {
    const co = await newCompany();
    const id = newId();
    const nest = (levels: number) => {
      let v: unknown = "leaf";
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    // The body object is level 1 and `messages` level 2, so a message may nest MAX_JSON_DEPTH - 2 levels.
    const fits = [nest(MAX_JSON_DEPTH - 2)];
    const ok = await put(co, id, { account_email: "orders@shop.example", messages: fits });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect(ok.body.email_thread.messages).toEqual(fits);

    const deep = await put(co, id, { account_email: "orders@shop.example", messages: [nest(MAX_JSON_DEPTH - 1)] });
    expectError(deep, 400, "invalid_request");
    // Far deeper than any stack: still a 400.
    const raw = `{"account_email":"orders@shop.example","messages":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const hostile = await call("PUT", path(id), { token: co.token, rawBody: raw, headers: { "content-type": "application/json" } });
    expect(hostile.status).toBe(400);
    expect(hostile.body.error.code).toBe("invalid_request");
    expect((await rowsFor(co.companyId, id))[0].message_count).toBe(1);
  });

  it("50 concurrent PUTs for one key leave exactly one row equal to one request whole", async () => {
    const co = await newCompany();
    const id = newId();
    const bodies = Array.from({ length: 50 }, (_, i) => ({
      account_email: i % 2 ? "Orders@Shop.example" : "orders@shop.example",
      messages: Array.from({ length: 1 + (i % 7) }, (_, m) => message(m, { writer: i })),
      participants: [`p${i}@x.example`],
      labels: [`L${i}`],
      subject: `subject ${i}`,
      snippet: `snippet ${i}`,
      mail_thread_id: `canonical-${i}`,
      first_message_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      last_message_at: new Date(Date.UTC(2026, 0, 2, 0, i)).toISOString(),
      mail_history_id: String(i),
      last_synced_at: new Date(Date.UTC(2026, 0, 3, 0, i)).toISOString(),
    }));
    const results = await Promise.all(bodies.map((b) => put(co, id, b)));
    expect(results.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(new Set(results.map((r) => r.body.email_thread.id)).size).toBe(1);

    const rows = await rowsFor(co.companyId, id);
    expect(rows).toHaveLength(1);
    const stored = (await get(co, id, "orders@shop.example")).body.email_thread;
    const winner = Number(stored.mail_history_id);
    const { account_email: _email, ...sent } = bodies[winner];
    expect(stored).toMatchObject({ ...sent, account_email: "orders@shop.example", message_count: sent.messages.length });
    expect(stored.messages.every((m: { writer: number }) => m.writer === winner)).toBe(true);
  });
});

describe("exact JSON numbers", () => {
  /** A call whose response stays text: JSON.parse would round the very numbers under test. */
  const rawCall = async (co: TestCompany, method: string, url: string, rawBody?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${co.token}` };
    if (rawBody !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${apiUrl()}${url}`, { method, headers, body: rawBody });
    return { status: res.status, text: await res.text() };
  };
  const getPath = (id: string) => `${path(id)}?account_email=orders%40shop.example`;

  // Numbers a double cannot hold, in every member; written as a client would send them.
  const members = {
    messages: `[{"id": "m1", "size": 12345678901234567890, "ratio": 0.1000000000000000055511151231257827, "neg": -98765432109876543210.123456789012345678901234567890, "price": 1.50, "tiny": 1e-30, "huge": 1.5e98, "nested": [[9007199254740993]]}, 18446744073709551615]`,
    participants: `[{"email": "maya@northside.example", "crm_id": 9007199254740993}]`,
    labels: `["INBOX", 123456789012345678901234567890]`,
  };
  // What PostgreSQL returns for them: the same values, exponents written out in plain decimal.
  const expected = [
    "12345678901234567890",
    "0.1000000000000000055511151231257827",
    "-98765432109876543210.123456789012345678901234567890",
    "1.50",
    `0.${"0".repeat(29)}1`,
    `15${"0".repeat(97)}`,
    "9007199254740993",
    "18446744073709551615",
    "123456789012345678901234567890",
  ];
  const body = `{"account_email": "orders@shop.example", "messages": ${members.messages}, "participants": ${members.participants}, "labels": ${members.labels}}`;

  /** Each member of a response's email_thread equals what was sent, compared by jsonb (numeric) in PostgreSQL, and as text. */
  const expectExact = async (responseText: string) => {
    for (const [key, sent] of Object.entries(members)) {
      const [row] = await sql<{ same: boolean; got: string; want: string }>(
        `select ($1::jsonb -> 'email_thread' -> $2) = $3::jsonb as same,
                ($1::jsonb -> 'email_thread' -> $2)::text as got, $3::jsonb::text as want`,
        [responseText, key, sent],
      );
      expect(row.same, key).toBe(true);
      expect(row.got, key).toBe(row.want); // same text too, so scale (1.50) is kept
    }
    for (const number of expected) expect(responseText).toContain(number);
  };

  it("stores and returns every number in messages, participants and labels exactly (PUT, GET and the row)", async () => {
    const co = await newCompany();
    const id = newId();
    const put = await rawCall(co, "PUT", path(id), body);
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect(put.text).not.toContain("12345678901234567000"); // the double JSON.parse makes of it
    await expectExact(put.text);
    expect(JSON.parse(put.text).email_thread.message_count).toBe(2);

    const get = await rawCall(co, "GET", getPath(id));
    expect(get.status).toBe(200);
    await expectExact(get.text);

    const [row] = await sql<{ same: boolean }>(
      `select messages = $1::jsonb and participants = $2::jsonb and labels = $3::jsonb
              and messages::text = $1::jsonb::text as same
       from email_threads where company_id = $4 and legacy_thread_id = $5`,
      [members.messages, members.participants, members.labels, co.companyId, id],
    );
    expect(row.same).toBe(true);
  });

  it("an update replaces the members with the new exact values and keeps the unsent ones exact", async () => {
    const co = await newCompany();
    const id = newId();
    expect((await rawCall(co, "PUT", path(id), body)).status).toBe(200);
    const update = `{"account_email": "orders@shop.example", "messages": [99999999999999999999.99]}`;
    const res = await rawCall(co, "PUT", path(id), update);
    expect(res.status).toBe(200);
    expect(res.text).toContain("[99999999999999999999.99]");
    expect(res.text).toContain("9007199254740993"); // participants: not sent, kept exactly
    expect(res.text).toContain("123456789012345678901234567890"); // labels likewise
  });

  it("refuses with 400 what PostgreSQL's numeric cannot hold, naming the field, writing nothing", async () => {
    const co = await newCompany();
    const id = newId();
    const cases: [string, string][] = [
      [`[{"n": 1e${NUMERIC_MAX_INTEGER_DIGITS}}]`, "messages.0.n"],
      [`[1, [2, -1e-${NUMERIC_MAX_SCALE + 1}]]`, "messages.1.1"],
      [`[0e-${NUMERIC_MAX_SCALE + 1}]`, "messages.0"],
      [`[0e1073741824]`, "messages.0"],
      [`[0.${"0".repeat(NUMERIC_MAX_SCALE)}1]`, "messages.0"],
    ];
    for (const [messages, field] of cases) {
      const res = await call("PUT", path(id), {
        token: co.token,
        rawBody: `{"account_email": "orders@shop.example", "messages": ${messages}}`,
        headers: { "content-type": "application/json" },
      });
      const err = expectError(res, 400, "invalid_request");
      expect(fieldsOf(err), messages.slice(0, 40)).toEqual([field]);
    }
    const labels = await call("PUT", path(id), {
      token: co.token,
      rawBody: `{"account_email": "orders@shop.example", "messages": [], "labels": ["a", {"b": 1e200000}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(fieldsOf(expectError(labels, 400, "invalid_request"))).toEqual(["labels.1.b"]);
    // A lone surrogate escape: jsonb refuses it, so it is a 400 too, not a 500.
    const surrogate = await call("PUT", path(id), {
      token: co.token,
      rawBody: `{"account_email": "orders@shop.example", "messages": [{"s": "\\ud800"}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(fieldsOf(expectError(surrogate, 400, "invalid_request"))).toEqual(["messages.0.s"]);
    expect(await rowsFor(co.companyId, id)).toEqual([]);
  });

  it("accepts numbers at numeric's limits written out, and returns them as sent", async () => {
    const co = await newCompany();
    const id = newId();
    const messages = `[1${"0".repeat(NUMERIC_MAX_INTEGER_DIGITS - 1)}, -0.${"0".repeat(NUMERIC_MAX_SCALE - 1)}1]`;
    const res = await rawCall(co, "PUT", path(id), `{"account_email": "orders@shop.example", "messages": ${messages}}`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.text).toContain(messages);
  });

  it(`refuses a number sent with an exponent that written out exceeds ${NUMBER_MAX_EXPANDED_LENGTH} characters (a small body cannot store megabytes)`, async () => {
    const co = await newCompany();
    const id = newId();
    // 80 numbers of 7 bytes each that PostgreSQL would write as 100000 characters: 8 MB from 0.6 KB.
    const messages = `[${Array(80).fill("1e99999").join(",")}]`;
    const res = await call("PUT", path(id), {
      token: co.token,
      rawBody: `{"account_email": "orders@shop.example", "messages": ${messages}}`,
      headers: { "content-type": "application/json" },
    });
    const err = expectError(res, 400, "invalid_request");
    expect(err.details).toEqual([{ field: "messages.0", message: expect.stringContaining(String(NUMBER_MAX_EXPANDED_LENGTH)) }]);
    expect(await rowsFor(co.companyId, id)).toEqual([]);
    // Up to the limit, the same kind of number is fine, and it comes back written out.
    const ok = await rawCall(
      co,
      "PUT",
      path(id),
      `{"account_email": "orders@shop.example", "messages": [${Array(10).fill("1e99").join(",")}]}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(`[1${"0".repeat(99)}, `);
    expect(JSON.parse(ok.text).email_thread.message_count).toBe(10);
  });
});

describe("GET /mail/email-threads/{legacyThreadId}", () => {
  it("requires a valid account_email (400) and answers 404 for an unknown thread", async () => {
    const co = await newCompany();
    const id = newId();
    await put(co, id, { account_email: "orders@shop.example", messages: [] });
    expect(fieldsOf(expectError(await get(co, id), 400, "invalid_request"))).toEqual(["account_email"]);
    expect(fieldsOf(expectError(await get(co, id, ""), 400, "invalid_request"))).toEqual(["account_email"]);
    expect(fieldsOf(expectError(await get(co, id, "nope"), 400, "invalid_request"))).toEqual(["account_email"]);
    expectError(await get(co, newId(), "orders@shop.example"), 404, "not_found");
    expect((await get(co, id, "orders@shop.example")).status).toBe(200);
  });
});

describe("two companies", () => {
  it("the same legacy id and mailbox stored by two companies stays two rows, each invisible to the other", async () => {
    const [a, b] = await Promise.all([newCompany(), newCompany()]);
    const id = newId();
    const mailbox = "orders@shop.example";
    const ra = (await put(a, id, { account_email: mailbox, messages: [message(1)], subject: "A" })).body.email_thread;
    const rb = (await put(b, id, { account_email: mailbox, messages: [message(2), message(3)], subject: "B" })).body.email_thread;
    expect(ra.id).not.toBe(rb.id);
    expect((await get(a, id, mailbox)).body.email_thread).toMatchObject({ id: ra.id, subject: "A", message_count: 1 });
    expect((await get(b, id, mailbox)).body.email_thread).toMatchObject({ id: rb.id, subject: "B", message_count: 2 });
    expect(await rowsFor(a.companyId, id)).toHaveLength(1);
    expect(await rowsFor(b.companyId, id)).toHaveLength(1);
  });

  it("B never reads A's thread (same answer as a missing one) and B's PUT leaves A's row unchanged", async () => {
    const [a, b] = await Promise.all([newCompany(), newCompany()]);
    const id = newId();
    const mailbox = "orders@shop.example";
    await put(a, id, { account_email: mailbox, messages: [message(1)], subject: "A" });
    const before = await rowsFor(a.companyId, id);

    const same = asRequest("hidden-or-absent");
    const [hidden, absent] = await Promise.all([get(b, id, mailbox, same), get(b, newId(), mailbox, same)]);
    expectError(hidden, 404, "not_found");
    expect(hidden.body).toEqual(absent.body);

    expect((await put(b, id, { account_email: mailbox, messages: [], subject: "B" })).status).toBe(200);
    expect(await rowsFor(a.companyId, id)).toEqual(before);
  });
});

describe("body size limit", () => {
  /** A PUT body of exactly `bytes` bytes (ASCII padding inside one message). */
  const bodyOfSize = (bytes: number) => {
    const head = `{"account_email":"orders@shop.example","messages":[{"id":"m1","body_html":"`;
    const tail = `"}]}`;
    return head + "x".repeat(bytes - head.length - tail.length) + tail;
  };

  it(`accepts a body of exactly ${EMAIL_THREAD_BODY_LIMIT} bytes and answers 413 one byte above, in the error envelope`, async () => {
    const co = await newCompany();
    const id = newId();
    const send = (raw: string) => call("PUT", path(id), { token: co.token, rawBody: raw, headers: { "content-type": "application/json" } });

    const atLimit = bodyOfSize(EMAIL_THREAD_BODY_LIMIT);
    expect(Buffer.byteLength(atLimit)).toBe(EMAIL_THREAD_BODY_LIMIT);
    const ok = await send(atLimit);
    expect(ok.status).toBe(200);
    expect(ok.body.email_thread.messages[0].body_html).toBe(JSON.parse(atLimit).messages[0].body_html);
    const stored = await rowsFor(co.companyId, id);

    const over = await send(bodyOfSize(EMAIL_THREAD_BODY_LIMIT + 1));
    const err = expectError(over, 413, "invalid_request");
    expect(over.body).toEqual(
      errorEnvelope(over, { code: "invalid_request", message: err.message, details: { max_bytes: EMAIL_THREAD_BODY_LIMIT } }),
    );
    expect(await rowsFor(co.companyId, id)).toEqual(stored);
  });

  it("keeps the generic 1 MiB limit everywhere else", async () => {
    const co = await newCompany();
    const res = await co.post("/clients", { company_name: "x".repeat(1024 * 1024) });
    expect(expectError(res, 413, "invalid_request").details).toEqual({ max_bytes: 1024 * 1024 });
  });
});
