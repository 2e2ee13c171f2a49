import { describe, expect, it } from "vitest";
import { ANSWER_MAX_BYTES, PAGE_BUDGET_BYTES } from "../src/http/pagination";
import { EMAIL_THREAD_BODY_LIMIT } from "../src/routes/mail/schema";
import { EVENT_OBJECT_MAX_BYTES } from "../src/webhooks/event-data";
import { apiUrl, newCompany, sql, type TestCompany, waitFor } from "./support/api";
import { documentChecker, tokenOperations } from "./support/operations";
import { largestThreadWithLostEvent } from "./support/webhooks";

/*
 * Every answer's size is bounded (docs/api-conventions.md#answer-size), tested with the largest objects
 * the API stores: list pages stop at their byte budget and their cursor continues exactly where they
 * stopped; an event whose object is large carries a reference, and the reference's URL answers the object.
 */

/**
 * These tests move megabytes: about 15 s each alone on a 2-core machine, 30 s and more on one loaded
 * by other work; the limit allows for a machine three times slower than that.
 */
const MEGABYTES_TIMEOUT_MS = 120_000;

/** A GET's status, its size in bytes as sent, and its parsed body. */
async function sized(co: TestCompany, path: string) {
  const res = await fetch(`${apiUrl()}${path}`, { headers: { authorization: `Bearer ${co.token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes: bytes.length, body: JSON.parse(bytes.toString("utf8")) };
}

/** Follows next_cursor from `path` to the end: every page's size and rows. */
async function walk(co: TestCompany, path: string) {
  const pages: { bytes: number; rows: any[] }[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res = await sized(co, cursor ? `${path}${sep}cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    pages.push({ bytes: res.bytes, rows: res.body.data });
    cursor = res.body.pagination.next_cursor;
    if (pages.length > 50) throw new Error("cursor walk does not end");
  } while (cursor);
  return pages;
}

/** Runs `work` over `items`, `n` at a time. */
async function inBatches<T>(items: T[], n: number, work: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(work));
}

const settled = (co: TestCompany) =>
  waitFor(
    "payloads filled after commit",
    () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
    (rows) => rows.length === 0,
  );

/** A thread whose body is about `bytes` long: one message with a body of that size. */
const thread = (bytes: number, n: number) => ({
  account_email: "big@shop.example",
  messages: [{ id: `m${n}`, body_html: "x".repeat(bytes) }],
});

/** Three-byte characters (UTF-8) `n` of them, distinct per `tag`: the largest text a length limit in characters allows. */
const wide = (n: number, tag: string) => `${tag}${"€".repeat(n - tag.length)}`;

/** A client with every field at its largest: metadata of 50 keys of 40 characters, values of 500. */
const largestClient = (i: number) => ({
  company_name: wide(255, `c${i}`),
  first_name: wide(255, "f"),
  last_name: wide(255, "l"),
  website: wide(2048, "w"),
  tax_exempt_reason: wide(1000, "t"),
  metadata: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [wide(40, `k${k}`), wide(500, "v")])),
});

describe("answer size", () => {
  it(
    "a large thread's event carries a reference in the feed (up to an 8 MiB thread), and the reference's URL answers the thread",
    async () => {
      const co = await newCompany();
      const legacy = `big-${Date.now()}`;
      // Over the threshold through the API: the payload is made after commit from the PUT's answer.
      const put = await co.put(`/mail/email-threads/${legacy}`, thread(2 * EVENT_OBJECT_MAX_BYTES, 1));
      expect(put.status, JSON.stringify(put.body).slice(0, 300)).toBe(200);
      await settled(co);
      // The reference's URL (relative to the API's origin) answers the thread.
      const [first] = (await sized(co, "/events")).body.data;
      const res = await fetch(`${new URL(apiUrl()).origin}${first.data.object_reference.url}`, {
        headers: { authorization: `Bearer ${co.token}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).email_thread).toEqual(put.body.email_thread);
      // The largest thread the API stores, with an event whose payload the after-commit step lost: the feed renders it.
      const lost = await largestThreadWithLostEvent(co.companyId, put.body.email_thread.id);
      const reference = (size: (n: number) => boolean) => ({
        resource: "email_thread",
        id: put.body.email_thread.id,
        url: `/api/v1/mail/email-threads/${legacy}?account_email=big%40shop.example`,
        size_bytes: expect.toSatisfy(size),
      });
      const conforms = await documentChecker();
      const listEvents = (await tokenOperations()).find((o) => o.op.operationId === "listEvents")!;
      for (const perPage of [1, 2, 100]) {
        const page = await sized(co, `/events?per_page=${perPage}`);
        expect(page.status).toBe(200);
        // The reference is what the document says an event's data may be.
        conforms(listEvents, page);
        expect(page.bytes).toBeLessThanOrEqual(EVENT_OBJECT_MAX_BYTES);
        for (const event of page.body.data) {
          expect(event.type).toBe("email_thread.upserted");
          expect(event.data.object).toBeUndefined();
          const largest = event.id === lost.event_id;
          expect(event.data.object_reference).toEqual(
            reference((n) =>
              largest ? n > EMAIL_THREAD_BODY_LIMIT - 2048 : n > 2 * EVENT_OBJECT_MAX_BYTES && n < 3 * EVENT_OBJECT_MAX_BYTES,
            ),
          );
          expect((await sized(co, `/events/${event.id}`)).body).toEqual(event);
        }
      }
    },
    MEGABYTES_TIMEOUT_MS,
  );

  it(
    "GET /events: pages of large events stop at the budget, and the cursors walk every event once, in order",
    async () => {
      const co = await newCompany();
      // 24 events of about 200 KiB each (under the reference threshold): about 5 MB, over a page's budget.
      const n = 24;
      await inBatches(
        Array.from({ length: n }, (_, i) => i),
        4,
        async (i) => {
          const res = await co.put(`/mail/email-threads/t${i}`, thread(200 * 1024, i));
          expect(res.status).toBe(200);
        },
      );
      await settled(co);
      const expected = (
        await sql<{ event_id: string }>("select event_id from webhook_events where company_id = $1 order by id desc", [co.companyId])
      ).map((r) => r.event_id);
      expect(expected).toHaveLength(n);
      const pages = await walk(co, "/events?per_page=100");
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(PAGE_BUDGET_BYTES + 64 * 1024);
      expect(pages.flatMap((p) => p.rows.map((e) => e.id))).toEqual(expected);
      for (const e of pages.flatMap((p) => p.rows)) expect(e.data.object.messages[0].body_html).toHaveLength(200 * 1024);
    },
    MEGABYTES_TIMEOUT_MS,
  );

  it(
    "GET /clients: a page of the largest clients stays under the maximum, and its cursor continues exactly where it stopped",
    async () => {
      const co = await newCompany();
      const n = 100;
      // Loaded in one statement by the operator's import (the same validation and write as POST /clients/batch).
      const refs = await co.load({ clients: Array.from({ length: n }, (_, i) => ({ ref: `c${i}`, ...largestClient(i) })) });
      const ids = Object.values(refs) as number[];
      expect(ids).toHaveLength(n);
      ids.sort((a, b) => a - b);
      // Changed long enough ago for an incremental sync to list them.
      await sql("update clients set updated_at = now() - interval '1 hour' where company_id = $1", [co.companyId]);
      const one = await sized(co, `/clients/${ids[0]}`);
      expect(one.bytes).toBeGreaterThan(60_000);
      for (const path of ["/clients?per_page=100", "/clients?per_page=100&updated_since=2000-01-01T00:00:00Z&include_deleted=true"]) {
        const pages = await walk(co, path);
        expect(pages.length).toBeGreaterThan(1);
        expect(pages[0].rows.length).toBeLessThan(n);
        for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
        expect(pages.flatMap((p) => p.rows.map((c) => c.id))).toEqual(ids);
      }
    },
    MEGABYTES_TIMEOUT_MS,
  );
});
