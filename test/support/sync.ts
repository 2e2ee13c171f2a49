import { expect } from "vitest";
import type { ApiResponse, TestCompany } from "./api";

export interface SyncPass {
  /** Every row of the pass, in the order received. */
  rows: any[];
  pages: number;
  /** `pagination.next_updated_since` of the last page: the next pass's `updated_since`. */
  nextSince: string;
}

/**
 * One incremental sync pass, the documented loop: GET `list?updated_since=…` and follow next_cursor to
 * the end. `between` runs after each page (to change rows while the pass is under way), `onPage` sees each answer.
 */
export async function syncPass(
  co: TestCompany,
  list: string,
  since: string,
  opts: { perPage?: number; extra?: string; between?: (page: number) => Promise<void>; onPage?: (res: ApiResponse) => void } = {},
): Promise<SyncPass> {
  const base = `${list}?updated_since=${encodeURIComponent(since)}&per_page=${opts.perPage ?? 3}${opts.extra ?? ""}`;
  const rows: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let nextSince = since;
  do {
    const res: ApiResponse = await co.get(cursor ? `${base}&cursor=${cursor}` : base);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    rows.push(...res.body.data);
    opts.onPage?.(res);
    cursor = res.body.pagination.next_cursor;
    nextSince = res.body.pagination.next_updated_since;
    expect(nextSince >= since, `next_updated_since ${nextSince} went back from ${since}`).toBe(true);
    pages++;
    await opts.between?.(pages);
    if (pages > 100) throw new Error("sync pass does not end");
  } while (cursor);
  return { rows, pages, nextSince };
}

/** Within one pass rows come in updated_at order, and a row comes back only as a newer version. */
export function expectAscending(rows: any[]) {
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) expect(rows[i - 1].updated_at <= rows[i].updated_at, `${rows[i - 1].updated_at} then ${rows[i].updated_at}`).toBe(true);
    const version = `${rows[i].id}@${rows[i].updated_at}`;
    expect(seen.has(version), `${version} repeated`).toBe(false);
    seen.add(version);
  }
}

/**
 * Syncs from `since` pass after pass, keeping the newest version of each row by id, until a pass's
 * watermark passes `until` (every change up to it is then in); gives up after 20 s.
 */
export async function syncUntil(co: TestCompany, list: string, since: string, until: string, extra = "") {
  const state = new Map<number, any>();
  const deadline = Date.now() + 20_000;
  let from = since;
  for (;;) {
    const pass = await syncPass(co, list, from, { extra });
    expectAscending(pass.rows);
    for (const row of pass.rows) state.set(row.id, row);
    from = pass.nextSince;
    if (from > until) return { state, since: from };
    if (Date.now() > deadline) throw new Error(`sync did not pass ${until}; at ${from}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
