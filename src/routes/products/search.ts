import { z } from "@hono/zod-openapi";
import { invalid } from "../../http/errors";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { DEFAULT_SOURCE_TIMEOUT_MS } from "../../platform/config";
import { SupplierError, withDeadline } from "../../suppliers/http";
import { PROVIDERS, UNAVAILABLE_MESSAGES, type Unavailable } from "../../suppliers/integrations";
import { extractStyleToken, getProductInfo, styleResult } from "../../suppliers/supplier-a";
import { MAX_STYLES, searchStyles } from "../../suppliers/supplier-b";
import { MAX_RESULTS, recentCatalog, SAMPLE_SIZE, searchStorage } from "./queries";
import {
  emptySupplierA,
  SEARCH_SOURCES,
  type SearchSource,
  type SkipReason,
  searchResponseSchema,
  serializeCatalogItem,
  serializeInvoiceLine,
} from "./schema";

const route = createAuthRoute({
  method: "get",
  // Asks the company's supplier integrations (supplier_a, supplier_b) over the network.
  reaches: ["suppliers"],
  path: "/products/search",
  operationId: "searchProducts",
  tags: ["Products"],
  summary: "Search products across the catalog, both suppliers and invoice lines",
  description:
    "Searches the included sources concurrently; each source has its own time budget " +
    `(${DEFAULT_SOURCE_TIMEOUT_MS} ms by default), so the answer takes about as long as the slowest source, never the sum. ` +
    "A source that fails, times out, answers garbage, or whose supplier integration is missing or disabled contributes " +
    "empty results and is listed in `skipped` with a reason; the response is still 200. Every group key is always present.\n\n" +
    `- \`local\`: the company's live catalog items whose title contains q (case-insensitive; titles starting with q first, then by title; at most ${MAX_RESULTS}).\n` +
    `- \`supplier_b\`: style search at the supplier (at most ${MAX_STYLES} styles, in the supplier's order).\n` +
    "- `supplier_a`: a style token is taken from q — the first whitespace-separated token that, with leading and trailing " +
    "punctuation removed, matches `^[A-Z]{0,4}[0-9]{2,5}[A-Z]{0,3}$` case-insensitively, uppercased (`pc54 navy` → PC54, " +
    "`gildan g500` → G500, `5000` → 5000, `ST350` → ST350) — and every catalog row of that style is returned with a summary. " +
    "No token: skipped with `no_style_token`. An unknown style is an empty result.\n" +
    `- \`lines\`: the company's invoice items whose title or description contains q, excluding deleted items and items of deleted invoices or orders; most recent first, at most ${MAX_RESULTS}.\n\n` +
    `Blank or missing q: only the ${SAMPLE_SIZE} most recently added local items; the other included sources are skipped with \`blank_query\`.`,
  request: {
    query: z.object({
      q: z
        .string()
        .max(200)
        .optional()
        .openapi({ param: { name: "q", in: "query" }, description: "Search text", example: "pc54 navy" }),
      include: z
        .string()
        .max(200)
        .optional()
        .openapi({
          param: { name: "include", in: "query" },
          description: `Comma list of sources to search: ${SEARCH_SOURCES.join(", ")}. Omitted or blank: all. An unknown token is a 400.`,
          example: "local,supplier_a",
        }),
    }),
  },
  responses: {
    200: { description: "Results grouped by source", content: jsonContent(searchResponseSchema) },
  },
});

type SearchResult = z.infer<ReturnType<typeof searchResponseSchema>>;

function parseInclude(include: string | undefined): Set<SearchSource> {
  const tokens = (include ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (!tokens.length) return new Set(SEARCH_SOURCES);
  const unknown = tokens.filter((t) => !(SEARCH_SOURCES as readonly string[]).includes(t));
  if (unknown.length) {
    throw invalid("Unknown source in `include`", [
      { field: "include", message: `Unknown source(s): ${unknown.join(", ")}; allowed: ${SEARCH_SOURCES.join(", ")}` },
    ]);
  }
  return new Set(tokens as SearchSource[]);
}

/** A source that is not searched for a reason known before any call. */
class Skip extends Error {
  constructor(
    readonly reason: SkipReason,
    message: string,
  ) {
    super(message);
  }
}

const unavailable = (reason: Unavailable) => new Skip(reason, UNAVAILABLE_MESSAGES[reason]);

export const registerSearchProducts = (api: Router) =>
  api.openapi(route, async (c) => {
    const { q, include } = c.req.valid("query");
    const sources = parseInclude(include);
    const query = q?.trim() ?? "";
    const db = c.get("db");
    const auth = c.get("auth");
    const logger = c.get("logger");
    const timeoutMs = c.get("config").PRODUCT_SOURCE_TIMEOUT_MS;
    const style = query && sources.has("supplier_a") ? extractStyleToken(query) : null;

    const result: Omit<SearchResult, "skipped"> = {
      query,
      local_items: [],
      supplier_b_styles: [],
      // The style stays named even when the supplier fails, so the caller knows what was asked.
      supplier_a: emptySupplierA(style),
      invoice_lines: [],
    };
    const skipped: SearchResult["skipped"] = [];

    /** Runs one source under its deadline; its result lands only if it arrives in time. */
    async function run<T>(source: SearchSource, task: (signal: AbortSignal) => Promise<T>, land: (value: T) => void) {
      if (!sources.has(source)) return;
      try {
        land(await withDeadline(timeoutMs, task));
      } catch (e) {
        const reason: SkipReason = e instanceof Skip || e instanceof SupplierError ? e.reason : "source_error";
        const message = reason === "source_error" ? "The source failed" : (e as Error).message;
        skipped.push({ source, reason, message });
        if (!(e instanceof Skip)) {
          // Reason and status only: supplier bodies and request details may carry account data.
          logger.warn("product source skipped", {
            source,
            reason,
            upstream_status: e instanceof SupplierError ? e.status : undefined,
            error: reason === "source_error" ? (e as Error).name : undefined,
          });
        }
      }
    }

    if (!query) {
      for (const source of sources) if (source !== "local") skipped.push({ source, reason: "blank_query", message: "q is blank" });
      await run(
        "local",
        () => recentCatalog(db, auth.companyId),
        (rows) => (result.local_items = rows.map(serializeCatalogItem)),
      );
    } else {
      // supplier_a without a style token is skipped before it needs its integration.
      const providers = PROVIDERS.filter((p) => sources.has(p) && (p !== "supplier_a" || style));
      // One statement for all database parts; each source awaits it inside its own deadline, and the
      // supplier calls start as soon as it returns.
      const stored = searchStorage(db, auth.companyId, query, { local: sources.has("local"), lines: sources.has("lines"), providers });
      stored.catch(() => {}); // failures surface in the sources that await it
      await Promise.all([
        run(
          "local",
          async () => (await stored).local,
          (rows) => (result.local_items = rows.map(serializeCatalogItem)),
        ),
        run(
          "lines",
          async () => (await stored).lines,
          (rows) => (result.invoice_lines = rows.map(serializeInvoiceLine)),
        ),
        run(
          "supplier_b",
          async (signal) => {
            const state = (await stored).integrations.supplier_b;
            if (!state.ok) throw unavailable(state.reason);
            return searchStyles(state.config, query, signal);
          },
          (styles) => (result.supplier_b_styles = styles),
        ),
        run(
          "supplier_a",
          async (signal) => {
            if (!style) throw new Skip("no_style_token", "q holds no style token");
            const state = (await stored).integrations.supplier_a;
            if (!state.ok) throw unavailable(state.reason);
            return getProductInfo(state.config, { style }, signal);
          },
          (products) => (result.supplier_a = styleResult(style, products)),
        ),
      ]);
    }

    skipped.sort((a, b) => SEARCH_SOURCES.indexOf(a.source) - SEARCH_SOURCES.indexOf(b.source));
    return c.json({ ...result, skipped }, 200);
  });
