import { z } from "@hono/zod-openapi";
import type { JSONValue } from "hono/utils/types";
import { ACTOR_TYPES } from "../../db/schema/users";
import { webhookEvents } from "../../db/schema/webhooks";
import { invalid } from "../../http/errors";
import { jsonWithRaw, RawJson } from "../../http/exact-json";
import { createAuthRoute, jsonContent, paginationQuery, type Router } from "../../http/openapi";
import { cursorQuery, decodeCursor, encodeCursor, PAGE_BUDGET_BYTES, rowsWithinBudget, utf8Bytes } from "../../http/pagination";
import { REQUEST_ID } from "../../http/request-context";
import { isoDateTime } from "../../platform/dates";
import type { KeysetSort } from "../../platform/keyset";
import { EVENT_OBJECT_MAX_BYTES, type EventCatalog } from "../../webhooks/events-catalog";
import { EVENT_RETENTION_DAYS, listEvents, payloadsOf } from "../../webhooks/feed";
import { eventsPaginationSchema } from "./schema";

/** Newest first: the order events were written in, so a cursor stays stable while events are added. */
const EVENTS_SORT: KeysetSort = { name: "events_desc", direction: "desc", columns: [{ column: webhookEvents.id, kind: "bigint" }] };
/** Types one request may filter on at most. */
const MAX_TYPES = 20;
/** A value of `type` naming several types, comma-separated (up to MAX_TYPES), as a regular expression. */
const typeList = (types: string[]) => {
  const one = `(${types.map((t) => t.replaceAll(".", "\\.")).join("|")})`;
  return `^${one}(,${one}){1,${MAX_TYPES - 1}}$`;
};

export function registerListEvents(api: Router, catalog: EventCatalog, eventSchema: () => z.ZodType) {
  const types = Object.keys(catalog) as [string, ...string[]];
  const route = createAuthRoute({
    method: "get",
    path: "/events",
    operationId: "listEvents",
    tags: ["Events"],
    summary: "List events",
    description:
      `The company's change events of the last ${EVENT_RETENTION_DAYS} days, newest first, each exactly as its webhook deliveries ` +
      "send it (`id`, `type`, `created_at`, `data.object`). Every change that sends a webhook is here, whether or not an endpoint " +
      "subscribes to its type, so an integration without a public URL (or one whose endpoint was down) can see what happened. " +
      "`type` takes one type or several (repeated, or comma-separated); `resource_id` the id of the client, order or thread; " +
      "`created_after` / `created_before` bound `created_at` (both exclusive); `actor_type` and `actor_id` the events' `actor` " +
      "(who caused them), `request_id` the request that did (the `X-Request-Id` of its answer). Follow `pagination.next_cursor` (with the same " +
      "filters) for older events; new events arrive at the top. A page holds at most `per_page` events and stops early at " +
      `${PAGE_BUDGET_BYTES / 1048576} MiB of events (\`next_cursor\` then continues right after its last event); an event whose ` +
      `object's JSON is over ${EVENT_OBJECT_MAX_BYTES / 1024} KiB carries \`data.object_reference\` (where to read the object) instead of \`data.object\`.`,
    request: {
      query: z.object({
        type: z
          .preprocess(
            (v) => (Array.isArray(v) ? v : [v]).flatMap((t) => (typeof t === "string" ? t.split(",") : [t])),
            z.array(z.enum(types)).min(1).max(MAX_TYPES),
          )
          .optional()
          .openapi({
            param: { name: "type", in: "query", style: "form", explode: true },
            description: "Only events of these types: repeat the parameter, or separate types with commas",
            example: ["order.created", "order.updated"],
            // Each value is one type or a comma-separated list of them (the parser splits them).
            items: {
              anyOf: [
                { type: "string", enum: types },
                { type: "string", pattern: typeList(types), maxLength: MAX_TYPES * (Math.max(...types.map((t) => t.length)) + 1) },
              ],
            },
          }),
        resource_id: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .openapi({
            param: { name: "resource_id", in: "query" },
            description: "Only events about this resource (a client or order id, a thread id)",
            example: "42",
          }),
        actor_type: z
          .enum(ACTOR_TYPES)
          .optional()
          .openapi({
            param: { name: "actor_type", in: "query" },
            description: "Only events caused by this kind of actor (`actor.type`)",
            example: "token",
          }),
        actor_id: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .openapi({
            param: { name: "actor_id", in: "query" },
            description: "Only events caused by this actor (`actor.id`, such as a token's id); needs `actor_type`",
            example: "12",
          }),
        request_id: z
          .string()
          .max(128)
          .regex(REQUEST_ID)
          .optional()
          .openapi({
            param: { name: "request_id", in: "query" },
            description: "Only events caused by this request (`request_id`: the `X-Request-Id` of the answer that made the change)",
            example: "0b5e3c1a-6f2d-4e8b-9a7c-2d1e0f3b4a5c",
          }),
        created_after: isoDateTime()
          .optional()
          .openapi({
            param: { name: "created_after", in: "query" },
            description: "Only events created after this instant",
            example: "2026-11-20T00:00:00Z",
          }),
        created_before: isoDateTime()
          .optional()
          .openapi({
            param: { name: "created_before", in: "query" },
            description: "Only events created before this instant",
            example: "2026-11-21T00:00:00Z",
          }),
        per_page: paginationQuery().per_page,
        ...cursorQuery(),
      }),
    },
    responses: {
      200: {
        description: "A page of events, newest first",
        content: jsonContent(() => z.object({ data: z.array(eventSchema()), pagination: eventsPaginationSchema() })),
      },
    },
  });

  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    // An actor's id means something only with its kind (and the index leads with the kind).
    if (query.actor_id !== undefined && query.actor_type === undefined)
      throw invalid("Invalid query parameters", [{ field: "actor_id", message: "actor_id needs actor_type" }]);
    const { companyId } = c.get("auth");
    const filters = {
      type: query.type ? [...new Set(query.type)].sort() : null,
      resource_id: query.resource_id ?? null,
      created_after: query.created_after ?? null,
      created_before: query.created_before ?? null,
      actor_type: query.actor_type ?? null,
      actor_id: query.actor_id ?? null,
      request_id: query.request_id ?? null,
    };
    const scope = { companyId, filters };
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, EVENTS_SORT, scope);
    const rows = await listEvents(
      c.get("db"),
      companyId,
      {
        types: filters.type ?? undefined,
        resourceId: query.resource_id,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
        actorType: query.actor_type,
        actorId: query.actor_id,
        requestId: query.request_id,
        beforeId: cursor?.key[0] ?? undefined,
      },
      query.per_page + 1,
    );
    const fetched = rows.slice(0, query.per_page);
    const rendered = await payloadsOf(c.get("db"), fetched, (type) => catalog[type]?.render);
    // The page stops at its byte budget; the cursor then continues right after the last event sent.
    const fit = rowsWithinBudget(rendered.map(utf8Bytes));
    const payloads = rendered.slice(0, fit);
    const last = fetched[fit - 1];
    const next_cursor =
      (rows.length > query.per_page || fit < fetched.length) && last
        ? encodeCursor(EVENTS_SORT, scope, [String(last.id)], (cursor?.page ?? 1) + 1)
        : null;
    // Payloads are the stored jsonb text, written into the answer as they are (numbers keep every digit).
    return jsonWithRaw<{ data: JSONValue[]; pagination: { per_page: number; next_cursor: string | null } }, 200>(
      c,
      { data: payloads.map((p) => new RawJson(p)), pagination: { per_page: query.per_page, next_cursor } },
      200,
    );
  });
}
