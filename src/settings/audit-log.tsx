import { type SQL, sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { AUDIT_RETENTION_DAYS } from "../http/audit";
import { rowsOf } from "../platform/sql-kit";
import type { SettingsEnv } from "./context";
import { Layout, Notice } from "./layout";

/**
 * `/settings/audit-log`: the company's audit trail (audit_entries: sign-ins, tokens created, rolled and
 * revoked, users invited and removed, endpoints changed, …) of the last AUDIT_RETENTION_DAYS days, newest
 * first, 50 a page (keyset: "Older entries" carries the last id), filtered by actor. Read-only: a GET form,
 * no CSRF token needed. Every signed-in user of the company sees it; another company's entries never show.
 */
export const auditLogRoutes = new Hono<SettingsEnv>();

const PAGE_SIZE = 50;

/** An actor filter's value: `user:<id>`, `token:<id>`, `oauth_grant:<id>` or `system`. */
const ACTOR = /^(?:(user|token|oauth_grant):(\d{1,18})|(system))$/;

interface Entry {
  id: string;
  created_at: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: string;
  request_id: string | null;
}

interface ActorOption {
  value: string;
  label: string;
}

/** The actors the filter offers: the company's users and tokens (few rows each), and the system. */
async function actorOptions(c: Context<SettingsEnv>): Promise<ActorOption[]> {
  const companyId = c.get("user").companyId;
  const rows = rowsOf<{ value: string; label: string }>(
    await c.get("db").execute(sql`
      select 'user:' || id as value, 'User ' || email as label from company_users where company_id = ${companyId}
      union all
      select 'token:' || id, 'Token ' || coalesce(name, '#' || id) || coalesce(' (…' || last_four || ')', '') from api_tokens where company_id = ${companyId}`),
  );
  return [...rows, { value: "system", label: "System (the operator's tools)" }];
}

/** A page of the company's entries, newest first, older than `before` when given. One query. */
async function listEntries(c: Context<SettingsEnv>, actor: SQL | undefined, before: string | undefined): Promise<Entry[]> {
  const companyId = c.get("user").companyId;
  return rowsOf<Entry>(
    await c.get("db").execute(sql`
      select a.id::text as id, to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') as created_at,
        a.actor_type, a.actor_id, coalesce(u.email, t.name) as actor_label, a.action, a.target_type, a.target_id,
        a.details::text as details, a.request_id
      from audit_entries a
        left join company_users u on a.actor_type = 'user' and u.id::text = a.actor_id and u.company_id = a.company_id
        left join api_tokens t on a.actor_type = 'token' and t.id::text = a.actor_id and t.company_id = a.company_id
      where a.company_id = ${companyId}
        and a.created_at > now() - make_interval(days => ${AUDIT_RETENTION_DAYS})
        ${actor ? sql`and ${actor}` : sql``}
        ${before ? sql`and a.id < ${before}::bigint` : sql``}
      order by a.id desc
      limit ${PAGE_SIZE + 1}`),
  );
}

const actorText = (e: Entry) =>
  e.actor_type === "system"
    ? "System"
    : `${e.actor_type.replace("_", " ")} ${e.actor_label ?? ""} #${e.actor_id ?? "?"}`.replace("  ", " ");

auditLogRoutes.get("/", async (c) => {
  const user = c.get("user");
  const actorParam = c.req.query("actor") ?? "";
  const beforeParam = c.req.query("before");
  const match = actorParam ? ACTOR.exec(actorParam) : null;
  const badActor = actorParam !== "" && !match;
  const badBefore = beforeParam !== undefined && !/^\d{1,18}$/.test(beforeParam);
  const actor = match
    ? match[3]
      ? sql`a.actor_type = 'system'`
      : sql`a.actor_type = ${match[1]} and a.actor_id = ${match[2]}`
    : undefined;
  const [options, rows] = await Promise.all([
    actorOptions(c),
    badActor || badBefore ? Promise.resolve([]) : listEntries(c, actor, beforeParam),
  ]);
  const entries = rows.slice(0, PAGE_SIZE);
  const older =
    rows.length > PAGE_SIZE
      ? `/settings/audit-log?${new URLSearchParams({ ...(actorParam ? { actor: actorParam } : {}), before: entries[entries.length - 1].id })}`
      : undefined;
  const page = (
    <Layout title="Audit log" user={user} csrfToken={c.get("csrfToken")} current="/settings/audit-log">
      {(badActor || badBefore) && <Notice kind="error">That filter is not one this page offers: choose an actor below.</Notice>}
      <p>
        What was done in this settings area and with the operator's tools for {user.companyName}, newest first, kept {AUDIT_RETENTION_DAYS}{" "}
        days. Changes made through the API are in the events feed (<code>GET /api/v1/events</code>), each with its actor, request id and
        previous values.
      </p>
      <form method="get" action="/settings/audit-log" class="inline" data-testid="audit-filter">
        <label for="audit-actor">Actor</label>
        <select id="audit-actor" name="actor">
          <option value="" selected={actorParam === ""}>
            everyone
          </option>
          {options.map((o) => (
            <option value={o.value} selected={o.value === actorParam}>
              {o.label}
            </option>
          ))}
        </select>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <div class="table-wrap">
        <table data-testid="audit-entries">
          <caption>Audit entries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
              <th scope="col">Request id</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr data-testid="audit-entry" data-entry-id={e.id}>
                <td>{e.created_at}</td>
                <td>{actorText(e)}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>{e.target_type ? `${e.target_type} #${e.target_id ?? ""}` : "—"}</td>
                <td>
                  <code>{e.details === "{}" ? "" : e.details}</code>
                </td>
                <td>{e.request_id ? <code>{e.request_id}</code> : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {entries.length === 0 && <p>No entries.</p>}
      {older && (
        <p>
          <a href={older} data-testid="older-entries">
            Older entries
          </a>
        </p>
      )}
    </Layout>
  );
  return c.html(page, badActor || badBefore ? 400 : 200);
});
