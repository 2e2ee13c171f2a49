import { z } from "@hono/zod-openapi";
import { createAuthRoute, jsonContent, paginationQuery, type Router } from "../../http/openapi";
import { cursorQuery } from "../../http/pagination";
import { REQUEST_LOG_RETENTION_DAYS } from "../../platform/request-log-store";
import { requestLogFilterQuery, requestLogPage } from "./page";
import { readerOf } from "./queries";
import { requestLogSchema, requestLogsPaginationSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/request-logs",
  operationId: "listRequestLogs",
  tags: ["Request logs"],
  summary: "List your requests",
  description:
    `The requests this token made in the last ${REQUEST_LOG_RETENTION_DAYS} days, newest first: one entry per request, and one per ` +
    "tool call of an MCP request (naming the tool). An entry is written shortly after its answer (usually within seconds), " +
    "not with it. A token reads its own entries only (the settings area shows the whole company's). Filters: `token_id`, " +
    "`status` (a code such as `404` or a class such as `4xx`), `method`, `operation` (an operationId), `since` (inclusive) and " +
    "`until` (exclusive). Follow `pagination.next_cursor` (with the same filters) for older entries.",
  request: { query: z.object({ ...requestLogFilterQuery(), per_page: paginationQuery().per_page, ...cursorQuery() }) },
  responses: {
    200: {
      description: "A page of entries, newest first",
      content: jsonContent(() =>
        z.object({ data: z.array(requestLogSchema()), pagination: requestLogsPaginationSchema() }).openapi("RequestLogList"),
      ),
    },
  },
});

export const registerListRequestLogs = (api: Router) =>
  api.openapi(route, async (c) => {
    const { per_page, cursor, ...filters } = c.req.valid("query");
    return c.json(await requestLogPage(c.get("db"), readerOf(c.get("auth")), filters, per_page, cursor), 200);
  });
