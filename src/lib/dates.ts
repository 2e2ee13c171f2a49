import { z } from "@hono/zod-openapi";

/**
 * ISO 8601 dates and timestamps limited to years 0001–9999 (UTC), the range PostgreSQL's `date`
 * and `timestamptz` share with JavaScript. zod's ISO checks alone accept year 0000 and offsets
 * that push a timestamp past 9999, which would fail in the database as a 500.
 */
const YEAR_RANGE = "Year must be between 0001 and 9999 (UTC)";
// An unparseable value already failed the ISO check (zod still runs refinements): one message is enough.
const inRange = (d: Date) => Number.isNaN(d.getTime()) || (d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999);

/** YYYY-MM-DD, a real calendar date. */
export const isoDate = () => z.iso.date().refine((s) => inRange(new Date(`${s}T00:00:00Z`)), { message: YEAR_RANGE });

/** Date-time with seconds and `Z` or `±hh:mm`, a real calendar date. */
export const isoDateTime = () =>
  z.iso.datetime({ offset: true }).refine((s) => inRange(new Date(s)), { message: YEAR_RANGE });
