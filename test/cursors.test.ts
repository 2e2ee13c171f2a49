import { beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../tools/ops/commands";
import { type ApiResponse, call, db, newCompany, type TestCompany, waitFor } from "./support/api";
import { type Operation, populated, tokenOperations } from "./support/operations";
import { recordDelivery } from "./support/webhooks";

// Cursors are client input. On every list of the OpenAPI document that takes `cursor` (and, where it
// also takes `updated_since`, on its sync too), a genuine next_cursor edited, truncated or taken from
// elsewhere is a 400 naming `cursor`: never a query that fails in PostgreSQL (a 500).

const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
const unb64 = (cursor: string) => JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));

/**
 * Edits of a decoded cursor `{ v, s, k, f, p }`. `refused` are wrong whatever the key's column (an int4
 * or bigint id, or a timestamp in microseconds); `odd` are out of range for some columns and a
 * position for others, so they may be followed (200) or refused (400), never a failed query.
 */
function edits(cursor: { k: unknown[]; p: number }) {
  const refused: [string, unknown][] = [];
  const odd: [string, unknown][] = [];
  const withKey = (i: number, value: unknown) => ({ ...cursor, k: cursor.k.map((v, j) => (j === i ? value : v)) });
  cursor.k.forEach((_, i) => {
    for (const value of [
      "99999999999999999999",
      "9223372036854775807", // bigint's largest: past ids a JS number carries and timestamps the key arithmetic carries
      "-210866803200000001", // before PostgreSQL's first timestamp
      "-9223372036854775808",
      "1e3",
      "1.5",
      " 1",
      "0x10",
      "",
      1,
      null,
      ["1"],
    ]) {
      refused.push([`key ${i} = ${JSON.stringify(value)}`, withKey(i, value)]);
    }
    // Past int4 (an int id), past a JS number's integers (a bigint id), before 1970 (a timestamp).
    for (const value of ["2147483648", "9999999999", "9007199254740993", "-1", "0"]) {
      odd.push([`key ${i} = ${JSON.stringify(value)}`, withKey(i, value)]);
    }
  });
  refused.push(["one key more", { ...cursor, k: [...cursor.k, "1"] }]);
  refused.push(["one key less", { ...cursor, k: cursor.k.slice(1) }]);
  for (const p of [0, 1, 1.5, "2", 1e300, -3, null]) refused.push([`page ${JSON.stringify(p)}`, { ...cursor, p }]);
  refused.push(["version 2", { ...cursor, v: 2 }]);
  refused.push(["another sort", { ...cursor, s: "nope" }]);
  refused.push(["another fingerprint", { ...cursor, f: "0" }]);
  refused.push(["not an object", [cursor]]);
  return { refused, odd };
}

/**
 * GETs as the company, on a fresh token every 250 requests: these tests send more requests than one
 * key may make per minute (300). The first is fresh too: the fixture's writes used the company's own.
 */
function reader(co: TestCompany) {
  let token: string | undefined;
  let used = 0;
  return {
    companyId: co.companyId,
    get: async (path: string) => {
      if (token === undefined || ++used > 250) {
        token = (await createToken(db(), { companyId: co.companyId })).token;
        used = 1;
      }
      return call("GET", path, { token });
    },
  };
}
type Reader = ReturnType<typeof reader>;

describe("edited cursors", () => {
  let co: Reader;
  let other: Reader;
  let lists: Operation[];
  let fixture: Awaited<ReturnType<typeof populated>>;
  let otherFixture: Awaited<ReturnType<typeof populated>>;

  beforeAll(async () => {
    const a = await newCompany();
    const b = await newCompany();
    // Two of everything, so every list has a next page at per_page=1.
    fixture = await populated(a);
    await populated(a);
    otherFixture = await populated(b);
    await populated(b);
    // The first endpoint of each company gets a second delivery.
    const endpoint = { path: "/webhook-endpoints/{id}", method: "get", op: {} };
    await recordDelivery(a, Number(fixture.concrete(endpoint).split("/")[2]));
    await recordDelivery(b, Number(otherFixture.concrete(endpoint).split("/")[2]));
    co = reader(a);
    other = reader(b);
    lists = (await tokenOperations()).filter(({ method, op }) =>
      method === "get" ? op.parameters?.some((p: { in: string; name: string }) => p.in === "query" && p.name === "cursor") : false,
    );
    // A sync lists only rows changed more than 2 s ago.
    await new Promise((r) => setTimeout(r, 2500));
  }, 120_000);

  /** Each list's first-page URL (per_page=1), plain and, where declared, as an incremental sync. */
  const variants = (operation: Operation, fix: typeof fixture) => {
    // The request log as the reader's token sees it (its own entries): the fixture's URL lists another token's.
    const url = operation.op.operationId === "listRequestLogs" ? operation.path : fix.concrete(operation);
    const join = url.includes("?") ? "&" : "?";
    const out = [`${url}${join}per_page=1`];
    if (operation.op.parameters.some((p: { name: string }) => p.name === "updated_since"))
      out.push(`${url}${join}per_page=1&updated_since=1970-01-01T00:00:00Z&include_deleted=true`);
    return out;
  };

  // The request log's entries land about a second after their requests, so its page is polled until
  // it has a second entry; every other list has its rows before the first call.
  const nextCursor = async (who: Reader, url: string) => {
    const res = await waitFor(
      `${url} with a next page`,
      () => who.get(url),
      (r) => r.status !== 200 || typeof r.body.pagination?.next_cursor === "string",
    );
    expect(res.status, `${url}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
    expect(res.body.pagination.next_cursor, `${url} has a next page`).toEqual(expect.any(String));
    return res.body.pagination.next_cursor as string;
  };

  const expectCursorRefused = (res: ApiResponse, what: string) => {
    expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status: 400, code: "invalid_request" });
    expect(res.body.error.details, what).toEqual([expect.objectContaining({ field: "cursor" })]);
  };

  it("covers every list that takes a cursor, with its sync where it has one", () => {
    // The lists the document has today; a new one is covered without being named here.
    expect(lists.map((l) => l.path)).toEqual(
      expect.arrayContaining(["/clients", "/orders", "/webhook-endpoints", "/webhook-endpoints/{id}/deliveries"]),
    );
  });

  it("a genuine cursor is followed (200); an edit of it is a 400 naming cursor, or a valid position", { timeout: 120_000 }, async () => {
    for (const operation of lists) {
      for (const url of variants(operation, fixture)) {
        const cursor = await nextCursor(co, url);
        expect((await co.get(`${url}&cursor=${cursor}`)).status, url).toBe(200);
        const { refused, odd } = edits(unb64(cursor));
        for (const [what, edited] of refused) expectCursorRefused(await co.get(`${url}&cursor=${b64(edited)}`), `${url}: ${what}`);
        for (const [what, edited] of odd) {
          const res = await co.get(`${url}&cursor=${b64(edited)}`);
          if (res.status === 200) expect(res.body.data, `${url}: ${what}`).toEqual(expect.any(Array));
          else expectCursorRefused(res, `${url}: ${what}`);
        }
      }
    }
  });

  it("a truncated, corrupted or foreign cursor is a 400 naming cursor", { timeout: 60_000 }, async () => {
    const cursors = new Map<string, string>();
    for (const operation of lists) for (const url of variants(operation, fixture)) cursors.set(url, await nextCursor(co, url));
    const all = [...cursors.values()];
    for (const [url, cursor] of cursors) {
      const bad: [string, string][] = [
        ["truncated by 1", cursor.slice(0, -1)],
        ["truncated by 5", cursor.slice(0, -5)],
        ["truncated to 12", cursor.slice(0, 12)],
        ["a character changed", `${cursor.slice(0, 20)}${cursor[20] === "A" ? "B" : "A"}${cursor.slice(21)}`],
        ["not base64", `${cursor}!`],
        ["not JSON", b64("\u0000\u00ff garbage")],
        ["JSON null", b64("null")],
        ["a number", b64("12")],
        ...all.filter((c) => c !== cursor).map((c, i): [string, string] => [`another list's cursor ${i}`, c]),
      ];
      for (const [what, text] of bad) expectCursorRefused(await co.get(`${url}&cursor=${encodeURIComponent(text)}`), `${url}: ${what}`);
    }
    // Another company's genuine cursor for the same list.
    for (const operation of lists) {
      for (const [i, url] of variants(operation, otherFixture).entries()) {
        const foreign = await nextCursor(other, url);
        const mine = variants(operation, fixture)[i];
        expectCursorRefused(await co.get(`${mine}&cursor=${foreign}`), `${mine}: company B's cursor`);
      }
    }
  });
});
