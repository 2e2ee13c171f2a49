import { z } from "@hono/zod-openapi";
import type { requestLogs } from "../../db/schema/request-logs";
import { schemaOnce, wireFields } from "../../http/openapi";
import { budgetedCursorPagination } from "../../http/pagination";
import { REQUEST_LOG_RETENTION_DAYS } from "../../platform/request-log-store";

export type RequestLogRow = typeof requestLogs.$inferSelect;

const nullableInt = (description: string) => z.number().int().nullable().openapi({ description });

export const requestLogSchema = schemaOnce(() =>
  z
    .object({
      request_id: z.string().openapi({
        description: "The request's id (its `X-Request-Id`, and `error.request_id` of an error)",
        example: "0b6f4f4e-3a1c-4a57-9d54-2f1c2d1e8b10",
      }),
      seq: z
        .number()
        .int()
        .openapi({ description: "0 for the request itself; 1, 2 … for the tool calls of an MCP request, in call order", example: 0 }),
      created_at: z.string().openapi({ format: "date-time", description: "When the request arrived", example: "2026-11-21T13:37:00.000Z" }),
      method: z.string().openapi({ example: "GET" }),
      path: z.string().openapi({
        description: "Path and query string, with e-mail addresses written `{email}` and `q` values `[redacted]`",
        example: "/api/v1/clients?q=[redacted]&per_page=10",
      }),
      operation: z
        .string()
        .nullable()
        .openapi({ description: "The operationId (`listClients`); `mcp` for the MCP endpoint itself", example: "listClients" }),
      tool: z.string().nullable().openapi({ description: "The MCP tool a tool call ran", example: "list_clients" }),
      status: z.number().int().openapi({ description: "The answer's HTTP status", example: 200 }),
      error_code: z.string().nullable().openapi({ description: "An error answer's `error.code`", example: null }),
      duration_ms: z.number().int().openapi({ description: "Time from arrival to the answer, in ms", example: 38 }),
      token_id: nullableInt("The API token that made the request"),
      oauth_grant_id: nullableInt("The OAuth grant that made the request"),
      oauth_client_id: z.string().nullable().openapi({ description: "The OAuth client of that grant" }),
      user_id: nullableInt("The settings-area user who took the action"),
      idempotency_key: z.string().nullable().openapi({ description: "The `Idempotency-Key` the request sent" }),
      idempotent_replay: z.boolean().openapi({ description: "The answer was the stored answer of an earlier request with the same key" }),
    })
    .openapi("RequestLog", { description: `One request's entry in the request log (kept ${REQUEST_LOG_RETENTION_DAYS} days)` }),
);

export const requestLogDetailSchema = schemaOnce(() =>
  requestLogSchema()
    .extend({
      tool_calls: z
        .array(requestLogSchema())
        .openapi({ description: "For an MCP request: the entry of each tool call it ran, in call order; empty otherwise" }),
    })
    .openapi("RequestLogDetail"),
);

export const requestLogsPaginationSchema = budgetedCursorPagination("RequestLogsPagination", "entries");

const FIELDS = [
  "requestId",
  "seq",
  "createdAt",
  "method",
  "path",
  "operation",
  "tool",
  "status",
  "errorCode",
  "durationMs",
  "tokenId",
  "oauthGrantId",
  "oauthClientId",
  "userId",
  "idempotencyKey",
  "idempotentReplay",
] as const;

export const serializeRequestLog = (row: RequestLogRow) => wireFields(row, FIELDS) as z.infer<ReturnType<typeof requestLogSchema>>;
