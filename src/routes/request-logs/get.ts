import { z } from "@hono/zod-openapi";
import { notFound } from "../../http/errors";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { REQUEST_LOG_RETENTION_DAYS } from "../../platform/request-log-store";
import { findRequestLogs, readerOf } from "./queries";
import { requestLogDetailSchema, serializeRequestLog } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/request-logs/{request_id}",
  operationId: "getRequestLog",
  tags: ["Request logs"],
  summary: "Get a request's entry",
  description:
    "The entry of one of this token's requests by its request id (the answer's `X-Request-Id`, an error's `error.request_id`), " +
    `within the last ${REQUEST_LOG_RETENTION_DAYS} days; an MCP request's entry lists its tool calls' in \`tool_calls\`. ` +
    "Another token's request, another company's, an older one or one not yet written (entries follow their answer within seconds) is 404.",
  request: {
    params: z.object({
      request_id: z
        .string()
        .max(128)
        .regex(/^[\w.:-]{1,128}$/, "A request id: 1 to 128 of A-Z a-z 0-9 _ . : -")
        .openapi({
          param: { name: "request_id", in: "path" },
          description: "The request's id",
          example: "0b6f4f4e-3a1c-4a57-9d54-2f1c2d1e8b10",
        }),
    }),
  },
  errors: [404],
  responses: { 200: { description: "The request's entry", content: jsonContent(requestLogDetailSchema) } },
});

export const registerGetRequestLog = (api: Router) =>
  api.openapi(route, async (c) => {
    const rows = await findRequestLogs(c.get("db"), readerOf(c.get("auth")), c.req.valid("param").request_id);
    if (!rows.length) throw notFound("Request log entry");
    // In seq order: the request's own entry (seq 0) first, then an MCP request's tool calls.
    const [own, ...toolCalls] = rows;
    return c.json({ ...serializeRequestLog(own), tool_calls: toolCalls.map(serializeRequestLog) }, 200);
  });
