import { z } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/context";
import { issuesToDetails } from "../http/errors";
import { sendRequestLog } from "../http/request-log";
import { schemaOnce } from "../http/schema-once";
import { REQUEST_LOG_RETENTION_DAYS } from "../platform/request-log-store";
import { requestLogFilterQuery, requestLogPage } from "../routes/request-logs/page";
import { findRequestLogs } from "../routes/request-logs/queries";
import { type RequestLogRow, serializeRequestLog } from "../routes/request-logs/schema";
import type { SettingsEnv } from "./context";
import { notFoundPage } from "./errors";
import { Layout, Notice } from "./layout";

/**
 * `/settings/request-logs`: the whole company's request log (docs/request-logs.md), newest first, with
 * the API list's filters (a GET form: no script, no state changed) and its cursor; each request id links
 * to its entry, `/settings/request-logs/{request_id}` (an MCP request's tool calls beside it). Reads
 * through the API route's own queries, as the company (no token restriction).
 */
export const requestLogsRoutes = new Hono<SettingsEnv>();

const PER_PAGE = 50;
// Built on the page's first use, not as the settings area loads.
const filterSchema = schemaOnce(() => z.object({ ...requestLogFilterQuery(), cursor: z.string().max(512).optional() }));
type Entry = ReturnType<typeof serializeRequestLog>;

const when = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;
const caller = (e: Entry) =>
  e.user_id !== null
    ? `user #${e.user_id}`
    : e.oauth_grant_id !== null
      ? `OAuth grant #${e.oauth_grant_id}`
      : e.token_id !== null
        ? `token #${e.token_id}`
        : "—";

function Rows({ entries, link }: { entries: Entry[]; link: boolean }) {
  return (
    <div class="table-wrap">
      <table data-testid="request-logs">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Request id</th>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">Operation</th>
            <th scope="col">Status</th>
            <th scope="col">Error</th>
            <th scope="col">ms</th>
            <th scope="col">Caller</th>
            <th scope="col">Idempotency-Key</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr data-testid="request-log-row">
              <td>{when(e.created_at)}</td>
              <td>
                {link ? (
                  <a href={`/settings/request-logs/${encodeURIComponent(e.request_id)}`}>
                    <code>{e.request_id}</code>
                  </a>
                ) : (
                  <code>{e.request_id}</code>
                )}
              </td>
              <td>{e.method}</td>
              <td>
                <code>{e.path}</code>
              </td>
              <td>{e.tool ? `${e.operation ?? "—"} (tool ${e.tool})` : (e.operation ?? "—")}</td>
              <td data-testid="status">{e.status}</td>
              <td>{e.error_code ?? ""}</td>
              <td>{e.duration_ms}</td>
              <td>{caller(e)}</td>
              <td>{e.idempotency_key ? `${e.idempotency_key}${e.idempotent_replay ? " (replayed)" : ""}` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const FIELDS: { name: keyof z.infer<ReturnType<typeof filterSchema>>; label: string; hint: string }[] = [
  { name: "token_id", label: "Token id", hint: "7" },
  { name: "status", label: "Status", hint: "404 or 4xx" },
  { name: "method", label: "Method", hint: "POST" },
  { name: "operation", label: "Operation", hint: "createOrder" },
  { name: "since", label: "Since", hint: "2026-11-20T00:00:00Z" },
  { name: "until", label: "Until", hint: "2026-11-21T00:00:00Z" },
];

requestLogsRoutes.get("/", async (c) => {
  const user = c.get("user");
  const query = Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== ""));
  const parsed = filterSchema().safeParse(query);
  let page: Awaited<ReturnType<typeof requestLogPage>> | undefined;
  let problems = parsed.success ? [] : issuesToDetails(parsed.error.issues);
  if (parsed.success) {
    const { cursor, ...filters } = parsed.data;
    try {
      page = await requestLogPage(c.get("db"), { companyId: user.companyId }, filters, PER_PAGE, cursor);
    } catch (e) {
      // A cursor of another query: the API's 400, said on the page.
      const details = (e as { details?: unknown }).details;
      if (!Array.isArray(details)) throw e;
      problems = details as typeof problems;
    }
  }
  const next = page?.pagination.next_cursor ? new URLSearchParams({ ...query, cursor: page.pagination.next_cursor }) : undefined;
  return c.html(
    <Layout title="Request logs" user={user} csrfToken={c.get("csrfToken")} current="/settings/request-logs">
      <h1>Request logs</h1>
      <p>
        Every request your company's tokens made to the API, each MCP tool call, and each action in this settings area, for{" "}
        {REQUEST_LOG_RETENTION_DAYS} days, newest first. An entry appears a few seconds after its answer.
      </p>
      {problems.length > 0 && (
        <Notice kind="error">
          {problems.map((p) => (
            <span data-testid="filter-error">
              {p.field}: {p.message}{" "}
            </span>
          ))}
        </Notice>
      )}
      <form method="get" action="/settings/request-logs" class="filters" data-testid="filters">
        {FIELDS.map((f) => (
          <label>
            {f.label}{" "}
            <input name={f.name} value={typeof query[f.name] === "string" ? query[f.name] : ""} placeholder={f.hint} maxlength={64} />
          </label>
        ))}
        <button type="submit">Filter</button> <a href="/settings/request-logs">Clear</a>
      </form>
      {page && (page.data.length ? <Rows entries={page.data} link /> : <p data-testid="no-entries">No entries.</p>)}
      {next && (
        <p>
          <a href={`/settings/request-logs?${next}`} rel="next" data-testid="older">
            Older entries
          </a>
        </p>
      )}
    </Layout>,
  );
});

requestLogsRoutes.get("/:request_id", async (c) => {
  const user = c.get("user");
  const requestId = c.req.param("request_id");
  const rows: RequestLogRow[] = /^[\w.:-]{1,128}$/.test(requestId)
    ? await findRequestLogs(c.get("db"), { companyId: user.companyId }, requestId)
    : [];
  if (!rows.length) return notFoundPage(c);
  return c.html(
    <Layout title={`Request ${requestId}`} user={user} csrfToken={c.get("csrfToken")} current="/settings/request-logs">
      <h1>
        Request <code>{requestId}</code>
      </h1>
      <Rows entries={rows.map(serializeRequestLog)} link={false} />
      <p>
        <a href="/settings/request-logs">All requests</a>
      </p>
    </Layout>,
  );
});

/**
 * Each state-changing action of a signed-in user (a POST form) leaves a request log entry naming the
 * user; its operation is `settings.` and the route's fixed segments (`settings.tokens.revoke`).
 */
export const logSettingsAction = async (c: Context<SettingsEnv>, next: () => Promise<void>) => {
  const started = Date.now();
  try {
    await next();
  } finally {
    const user = c.get("user");
    if (user && c.req.method !== "GET" && c.req.method !== "HEAD") {
      const operation = c.req.routePath
        .split("/")
        .filter((s) => s && !s.startsWith(":") && s !== "*")
        .join(".");
      const caller = { company_id: user.companyId, user_id: user.id, token_id: null, oauth_grant_id: null, oauth_client_id: null };
      sendRequestLog(c as unknown as Context<AppEnv>, started, caller, operation || "settings");
    }
  }
};
