import type { z } from "@hono/zod-openapi";
import { notFound } from "../../http/errors";
import { jsonWithRaw } from "../../http/exact-json";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { findTiedThreadContext } from "./queries";
import { legacyThreadIdParam, serializeThreadContext, threadContextSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/mail/threads/{legacyThreadId}",
  operationId: "getThreadContext",
  tags: ["Mail"],
  summary: "Get the cached CRM context of a mail thread",
  description:
    "Reads the read-only cache row for the legacy thread id (written by the mail add-on's backend) and returns it as stored; " +
    "its JSON members keep whatever shape the writer stored (numbers exactly, as jsonb holds them). 404 when no row exists **or** when the row is not tied to the caller's company " +
    "(the two answers are identical). A row is tied when any of these holds: " +
    "(1) `client_id` is the id of a client of the company; " +
    "(2) an object element of the `orders_data` array has `id`, `order_id` or `project_id` equal to an order (project) id of the company; " +
    "(3) `client_data` (an object), or an object element of `clients_data`, `orders_data` or `participants_data` (arrays), " +
    "has `company_id` or `companyId` equal to the caller's company id. " +
    'Ids count as JSON numbers (whole, e.g. `42` or `42.0`) or numeric strings (`"42"`, surrounding blanks ignored); ' +
    "soft-deleted clients and orders still tie. Nothing else counts: not `selected_order_id`, not keys nested deeper, " +
    "not bare scalars inside the arrays. A shape the rule cannot read (null, a string where an array is expected, " +
    '`"12.5"`, `"abc"`, nested arrays) simply does not tie the row; it never causes an error.',
  request: { params: legacyThreadIdParam() },
  errors: [404],
  responses: {
    200: { description: "The cached thread context", content: jsonContent(threadContextSchema) },
  },
});

export const registerGetThreadContext = (api: Router) =>
  api.openapi(route, async (c) => {
    const { legacyThreadId } = c.req.valid("param");
    const row = await findTiedThreadContext(c.get("db"), c.get("auth").companyId, legacyThreadId);
    if (!row) throw notFound("Mail thread context");
    return jsonWithRaw<z.infer<ReturnType<typeof threadContextSchema>>, 200>(c, serializeThreadContext(row), 200);
  });
