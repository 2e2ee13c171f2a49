/**
 * The total for a page fetched with `count(*) over ()` (one round trip for page and total).
 * Past the last page no row carries the count, so only then is it counted separately.
 */
export async function pageTotal(rows: { total: number }[], page: number, count: () => Promise<number>): Promise<number> {
  if (rows.length) return rows[0].total;
  return page > 1 ? count() : 0;
}
