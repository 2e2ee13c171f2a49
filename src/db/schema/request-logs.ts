import { bigserial, boolean, index, integer, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * One row per request under /api/v1 that a token (or an OAuth grant) made, per MCP tool call, and per
 * settings-area action (docs/request-logs.md). Written off the request path, in batches, by the request
 * log queue's consumer (src/platform/request-log-store.ts); kept 30 days. The table is partitioned by
 * day of `created_at` (the hand-written migration `request_logs_sql` replaces the plain table drizzle-kit
 * generates from this): the cron creates days ahead and drops whole days past the retention. No foreign
 * keys: entries outlive the tokens and users they name, and an insert checks nothing but its partition.
 */
export const requestLogs = pgTable(
  "request_logs",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    companyId: integer("company_id").notNull(),
    /** The request's id (X-Request-Id); an MCP request's tool calls share it (`seq` 1, 2, … in call order). */
    requestId: text("request_id").notNull(),
    seq: smallint("seq").notNull().default(0),
    method: text("method").notNull(),
    /** The path with e-mail segments and `q` values redacted, as the access log writes it. */
    path: text("path").notNull(),
    /** The operationId (`listClients`), `mcp` for the MCP endpoint, `settings.<action>` for the settings area. */
    operation: text("operation"),
    /** The MCP tool a tool call ran (`list_clients`). */
    tool: text("tool"),
    status: smallint("status").notNull(),
    /** status / 100 (4 for 4xx): the `status=4xx` filter's index key. */
    statusClass: smallint("status_class").notNull(),
    errorCode: text("error_code"),
    durationMs: integer("duration_ms").notNull(),
    tokenId: integer("token_id"),
    oauthGrantId: integer("oauth_grant_id"),
    oauthClientId: text("oauth_client_id"),
    userId: integer("user_id"),
    idempotencyKey: text("idempotency_key"),
    idempotentReplay: boolean("idempotent_replay").notNull().default(false),
  },
  (t) => [
    // (created_at, id): the partition key must be in every unique index of a partitioned table.
    primaryKey({ columns: [t.createdAt, t.id] }),
    // Newest first per company, per token, per status, per operation: each list's first page is an index walk.
    index("request_logs_company_idx").on(t.companyId, t.createdAt.desc(), t.id.desc()),
    index("request_logs_token_idx").on(t.companyId, t.tokenId, t.createdAt.desc(), t.id.desc()),
    index("request_logs_status_idx").on(t.companyId, t.statusClass, t.createdAt.desc(), t.id.desc()),
    index("request_logs_operation_idx").on(t.companyId, t.operation, t.createdAt.desc(), t.id.desc()),
    // A request's entries (GET /request-logs/{request_id}), and a redelivered message's entry written once.
    uniqueIndex("request_logs_request_idx").on(t.companyId, t.requestId, t.seq, t.createdAt),
  ],
);
