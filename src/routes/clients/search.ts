import { and, type SQL, sql } from "drizzle-orm";
import { clientSearchGrams, clientSearchText, clients } from "../../db/schema/clients";
import { type KeysetSort, orderBySql } from "../../platform/keyset";
import { countedTotal } from "../../platform/list-counts";

/*
 * The search of GET /clients (`q`): what a q matches, and how the page and its exact total are found
 * without walking the company, whatever the length of q (docs/scale.md, "Client search").
 *
 * A client matches when lower(q) is a substring of the lowercased searchable text (company name, "first
 * last", email, phone), or, for a q of only digits and phone punctuation, when q's digits are a substring
 * of the phone's digits. The index `clients_search_grams` holds every 1-, 2- and 3-character gram of that
 * text and of the phone's digits, prefixed with the company id; the counters 'clients/q=<gram>' hold, per
 * company, how many live clients contain each 1- or 2-character gram (drizzle/0011).
 */

/** A q of only digits, spaces and phone punctuation also matches the phone's digits. */
const PHONE_QUERY = /^[\d\s()+\-./]+$/;
/** The index holds every gram up to this many characters: a string this short is one key, an exact lookup. */
const GRAM = 3;

/**
 * Whether `s` lowercases to at most `n` characters. PostgreSQL lowercases (the same lower() as the index);
 * the one character whose lowercase is longer (U+0130, "İ", under ICU) is counted as long.
 */
const atMost = (s: string, n: number) => [...s].length <= n && !s.includes("\u0130");

const searchText = sql`lower(${clientSearchText(clients)})`;

/** The live clients of the company containing a one- or two-character gram, from the counters. */
const gramCount = (companyId: number, gram: SQL) => countedTotal(companyId, sql`('clients/q=' || ${gram})`);

/** One string q looks for: `check` decides a row exactly; `keys` are index keys every matching row has. */
interface Needle {
  check: SQL;
  keys: SQL;
  /** The keys alone decide: no row needs checking after the index. */
  exact: boolean;
}

/** Index keys of `s`: itself when short, else its rarest 3-grams (`client_search_keys`, drizzle/0011). */
const keysOf = (companyId: number, s: string) => sql`client_search_keys(${companyId}, ${s})`;

export interface ClientSearch {
  /** Exact condition, written so that the search index serves it. */
  indexed: SQL;
  /** Exact condition without the index (a row at a time, as a walk in list order filters). */
  check: SQL;
  /** One- or two-character q looking for one string: its exact total is a counter (the walk is then possible too). */
  counted?: SQL<number>;
}

/** What `q` (trimmed, not blank) finds among the company's clients. */
export function clientSearch(q: string, companyId: number): ClientSearch {
  // The field separator never matches, so a match never spans two fields.
  if (q.includes("\x1f")) return { indexed: sql`false`, check: sql`false`, counted: sql<number>`0` };
  const digits = q.replace(/\D/g, "");
  const phone = digits !== "" && PHONE_QUERY.test(q);
  const needles: Needle[] = [];
  if (phone && digits === q) {
    // Only digits: the text's and the phone digits' grams share the index's keys.
    needles.push({
      check: sql`(strpos(${searchText}, ${q}) > 0 or strpos(${clients.phoneDigits}, ${q}) > 0)`,
      keys: keysOf(companyId, q),
      exact: atMost(q, GRAM),
    });
  } else {
    needles.push({ check: sql`strpos(${searchText}, lower(${q})) > 0`, keys: keysOf(companyId, q), exact: atMost(q, GRAM) });
    // The digits' keys may also come from the text: always checked.
    if (phone) needles.push({ check: sql`strpos(${clients.phoneDigits}, ${digits}) > 0`, keys: keysOf(companyId, digits), exact: false });
  }
  const grams = clientSearchGrams(clients);
  const or = (parts: SQL[]) => (parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` or `)})`);
  const check = or(needles.map((n) => n.check));
  return {
    // Every match has its needle's keys, so the keys find the candidates; the checks (cheap string
    // searches) then decide, unless the keys alone are exact. Written as keys AND checks, not as
    // (keys AND check) OR …, so that rows are filtered by the checks only, never by the gram function.
    indexed: and(or(needles.map((n) => sql`${grams} @> ${n.keys}`)), needles.every((n) => n.exact) ? undefined : check)!,
    check,
    counted: needles.length === 1 && atMost(q, 2) ? gramCount(companyId, sql`lower(${q})`) : undefined,
  };
}

/** The sort's columns as a select list, on the `clients` name (a subquery or CTE read under it too). */
const sortColumns = (sort: KeysetSort) =>
  sql.join(
    sort.columns.map((c) => sql`${c.column}`),
    sql`, `,
  );

/**
 * The statement's CTEs for a search page, as SQL: `found` (the matching rows in `scope`, after the cursor
 * unless the total counts them) and `page` (the page's ids with the row that tells whether another page
 * follows); and `total`, the exact total (undefined when the caller has it).
 *
 * The page of a counted q whose matches are dense (total² ≥ need × company size: walking the list order
 * meets `need` matches sooner than reading them all) walks the list's index, at most `bound` rows (twice
 * the expected walk at the break-even point), checking each row; if that walk fills the page, or reaches
 * the end of the list, it is the page. Otherwise (a rare term, or matches bunched away from the cursor) the
 * page comes from the index's matches. Every other q reads its matches from the index: its total needs
 * them all anyway. No plan depends on the planner's guess of how common q is, so no term walks the company.
 */
export function searchPage(
  search: ClientSearch,
  opts: {
    companyId: number;
    sort: KeysetSort;
    scope: SQL | undefined;
    after: SQL | undefined;
    limit: number;
    offset: number;
    /**
     * Where the total comes from: the search's counter when it has one (else a count of `found`), a count
     * of `found` (a sync's range: the counters cover the whole list), or nowhere (a sync pass carries it).
     */
    total: "search" | "found" | "known";
  },
) {
  const { sort, scope, after, limit, offset } = opts;
  const need = limit + offset;
  const columns = sortColumns(sort);
  const orderBy = sql.join(orderBySql(sort), sql`, `);
  const countsFound = opts.total === "found" || (opts.total === "search" && !search.counted);
  // All matches when the total counts them (the cursor is then applied where the page reads `found`).
  // OFFSET 0 keeps PostgreSQL from merging it into the page's ORDER BY … LIMIT, which could make it a
  // walk of the list's index: it is always "every match", which the search index serves.
  const found = sql`select ${columns} from ${clients} where ${and(scope, countsFound ? undefined : after, search.indexed)} offset 0`;
  const fromFound = sql`select ${columns} from found as clients ${countsFound && after ? sql`where ${after}` : sql``} order by ${orderBy} limit ${need}`;
  const total = countsFound
    ? sql<number>`(select count(*) from found)`.mapWith(Number)
    : opts.total === "search"
      ? search.counted
      : undefined;

  let page = fromFound;
  if (search.counted) {
    const live = countedTotal(opts.companyId, "clients");
    const walkIf = sql`${search.counted} * ${search.counted} >= ${need}::bigint * ${live}`;
    const bound = sql`(select ceil(2 * sqrt(${need}::float8 * greatest(${live}, 1)))::int)`;
    // The check is applied outside the walk's LIMIT, so PostgreSQL cannot move it in: at most `bound` rows.
    const walked = sql`select ${columns}, ${search.check} as hit from ${clients} where ${and(scope, after)} order by ${orderBy} limit ${bound}`;
    page = sql`with walk as materialized (
        select ${columns} from (${walked}) as clients where hit and ${walkIf} order by ${orderBy} limit ${need}),
      walk_ok as materialized (
        select ${walkIf} and ((select count(*) from walk) = ${need}
          or (select count(*) from (select 1 from ${clients} where ${and(scope, after)} order by ${orderBy} limit ${bound}) as walked) < ${bound}) as ok)
      select ${columns} from walk as clients where (select ok from walk_ok)
      union all
      select ${columns} from (${fromFound}) as clients where not (select ok from walk_ok) and ${search.counted} > 0`;
  }
  return {
    found,
    page: sql`select id from (${page}) as clients order by ${orderBy} limit ${limit} offset ${offset}`,
    total,
  };
}
