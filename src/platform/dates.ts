import { z } from "@hono/zod-openapi";

/**
 * ISO 8601 dates and timestamps limited to what round-trips exactly. zod's ISO checks alone accept
 * year 0000 and offsets that push a timestamp past 9999, which PostgreSQL refuses (a 500 otherwise).
 * Timestamps also start at year 1000: they are read back through JavaScript's date parser, which
 * takes PostgreSQL's "0050-01-01 00:00:00+00" for 1950. Dates (YYYY-MM-DD) travel as text: 0001–9999.
 */
const inYears = (from: number, to: number) => (d: Date) =>
  // An unparseable value already failed the ISO check (zod still runs refinements): one message is enough.
  Number.isNaN(d.getTime()) || (d.getUTCFullYear() >= from && d.getUTCFullYear() <= to);

/** YYYY-MM-DD, a real calendar date, years 0001–9999. */
export const isoDate = () =>
  z.iso
    .date()
    .refine((s) => inYears(1, 9999)(new Date(`${s}T00:00:00Z`)), { message: "Year must be between 0001 and 9999" })
    // Declared for the document: the format admits exactly 10 characters.
    .openapi({ maxLength: 10 });

/** Date-time with seconds and `Z` or `±hh:mm`, a real calendar date, years 1000–9999 in UTC. */
export const isoDateTime = () =>
  // The length first (zod's ISO check admits any number of fraction digits); one message either way.
  z
    .string()
    .max(64)
    .pipe(
      z.iso
        .datetime({ offset: true })
        .refine((s) => inYears(1000, 9999)(new Date(s)), { message: "Year must be between 1000 and 9999 (UTC)" }),
    );
