import { type SQL, sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { Change, type ChangeContext } from "../changes/change";
import { WEBHOOK_EVENTS } from "../resources";
import {
  type AlsoWrite,
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  recentDeliveries,
  retryDelivery,
  rotateEndpointSecret,
  updateEndpoint,
} from "../routes/webhook-endpoints/operations";
import { findEndpoint } from "../routes/webhook-endpoints/queries";
import { endpointBodies } from "../routes/webhook-endpoints/schema";
import { ALL_EVENTS } from "../webhooks/events-catalog";
import { webhookUrlProblem } from "../webhooks/url";
import { auditInsertSql } from "./audit";
import type { SettingsEnv } from "./context";
import { notFoundPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, FieldError, fieldAria, Layout, Notice, RowAction, ShownOnce } from "./layout";

/**
 * `/settings/webhooks`: the company's webhook endpoints through the operations the `/webhook-endpoints`
 * API runs (src/routes/webhook-endpoints/operations.ts, in a Change of the signed-in user's company, so
 * what they write is published the same way): list, add, edit, enable/disable, rotate the secret (shown
 * once, in the POST's own answer), delete, and each endpoint's recent deliveries with re-send. The bodies
 * are checked by the API's own schemas and URL rules. Another company's ids answer as missing.
 */
export const webhooksRoutes = new Hono<SettingsEnv>();

const DISABLED_IN_SETTINGS = "Disabled in the settings area";

let bodies: ReturnType<typeof endpointBodies> | undefined;
const schemas = () => (bodies ??= endpointBodies(WEBHOOK_EVENTS));

const when = (d: Date | string | null) => (d ? `${new Date(d).toISOString().slice(0, 16).replace("T", " ")} UTC` : "—");

/** The user's company as the API's token would be: what a Change needs of its request. */
function changeContext(c: Context<SettingsEnv>): ChangeContext {
  const auth = { companyId: c.get("user").companyId, tokenId: 0, scope: "write" as const, tokenHash: "" };
  return {
    env: c.env,
    get: ((key: string) => (key === "auth" ? auth : key === "admitted" ? async () => {} : c.get(key as never))) as ChangeContext["get"],
    origin: { actor: { type: "user", id: String(c.get("user").id) }, requestId: c.get("requestId") },
  };
}

/** Runs `work` as the API's applyChange does: what it wrote is published once it is done. */
async function change<T>(c: Context<SettingsEnv>, work: (change: Change) => Promise<T>): Promise<T> {
  const ch = new Change(changeContext(c), c.get("db"), false);
  const result = await work(ch);
  ch.publish();
  return result;
}

/**
 * The action's audit entry, written by the operation's own statement (AlsoWrite): once per endpoint it
 * changed (`changed.id`), or for `targetId` (a re-send changes a delivery), so nothing when nothing changed.
 */
const audit =
  (c: Context<SettingsEnv>, action: string, details: Record<string, unknown> | SQL = {}, targetId?: number): AlsoWrite =>
  (changed) =>
    auditInsertSql({
      companyId: c.get("user").companyId,
      actor: { type: "user", id: c.get("user").id },
      action,
      targetType: "webhook_endpoint",
      targetId: targetId ?? sql`${changed}.id`,
      details,
      clientIp: c.get("clientIp"),
      requestId: c.get("requestId"),
      from: changed,
    });
/** What an add or an edit names: the endpoint's URL and events, as the statement wrote them. */
const urlAndEvents = sql`jsonb_build_object('url', changed.url, 'events', to_jsonb(changed.events))`;

/** An id from the path, or undefined (answered as missing). */
const pathId = (c: Context<SettingsEnv>, name = "id") => {
  const raw = c.req.param(name) ?? "";
  return /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
};

interface FormValues {
  url: string;
  events: string;
  description: string;
}

/** The form's fields checked by the API's schema and URL rules: the body, or messages per field. */
function readEndpointForm(c: Context<SettingsEnv>, values: FormValues) {
  const events = values.events.split(/[\s,]+/).filter(Boolean);
  const parsed = schemas().create.safeParse({ url: values.url, events, description: values.description.trim() || null });
  const errors: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? "url")] ??= issue.message;
  const problem = webhookUrlProblem(values.url.trim(), { allowLocalHttp: c.get("config").WEBHOOK_ALLOW_LOCAL_HTTP });
  if (problem) errors.url ??= `Invalid webhook URL: ${problem}`;
  return parsed.success && !Object.keys(errors).length ? { body: parsed.data } : { errors };
}

async function formValues(c: Context<SettingsEnv>): Promise<FormValues> {
  return { url: await field(c, "url"), events: await field(c, "events"), description: await field(c, "description") };
}

function EndpointFields({ values, errors }: { values: FormValues; errors: Record<string, string> }) {
  return (
    <>
      <label for="endpoint-url">URL</label>
      <input id="endpoint-url" name="url" required maxlength={2048} value={values.url} autocomplete="off" {...fieldAria("url", errors)} />
      <FieldError name="url" errors={errors} />
      <label for="endpoint-events">Event types (separated by spaces, or {ALL_EVENTS} for all)</label>
      <input id="endpoint-events" name="events" required value={values.events} autocomplete="off" {...fieldAria("events", errors)} />
      <p class="muted">Known types: {Object.keys(WEBHOOK_EVENTS).join(", ")}</p>
      <FieldError name="events" errors={errors} />
      <label for="endpoint-description">Description</label>
      <input
        id="endpoint-description"
        name="description"
        maxlength={500}
        value={values.description}
        autocomplete="off"
        {...fieldAria("description", errors)}
      />
      <FieldError name="description" errors={errors} />
    </>
  );
}

function SecretShown({ secret, heading }: { secret: string; heading: string }) {
  return (
    <ShownOnce id="new-secret" heading={heading} value={secret} copyLabel="Copy secret">
      <p>Copy it now: it is shown this once and never again.</p>
    </ShownOnce>
  );
}

async function ListPage(props: {
  c: Context<SettingsEnv>;
  secret?: string;
  form?: { values: FormValues; errors: Record<string, string> };
  notice?: string;
  error?: string;
}) {
  const { c } = props;
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  const endpoints = await listEndpoints(c.get("db"), user.companyId);
  const values = props.form?.values ?? { url: "", events: ALL_EVENTS, description: "" };
  return (
    <Layout title="Webhooks" user={user} csrfToken={csrf} current="/settings/webhooks">
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.secret && <SecretShown secret={props.secret} heading="The new endpoint's signing secret" />}
      <section aria-labelledby="add-heading">
        <h2 id="add-heading">Add an endpoint</h2>
        <form method="post" action="/settings/webhooks" class="stack" novalidate>
          <CsrfInput token={csrf} />
          <EndpointFields values={values} errors={props.form?.errors ?? {}} />
          <button type="submit">Add endpoint</button>
        </form>
      </section>
      <div class="table-wrap">
        <table>
          <caption>{user.companyName}'s webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Description</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((e) => (
              <tr data-testid="endpoint-row" data-endpoint-id={String(e.id)} data-enabled={String(e.enabled)}>
                <td>
                  <a href={`/settings/webhooks/${e.id}`}>{e.url}</a>
                </td>
                <td>{e.events.join(", ")}</td>
                <td>{e.description ?? ""}</td>
                <td>{e.enabled ? "enabled" : `disabled${e.disabledReason ? `: ${e.disabledReason}` : ""}`}</td>
                <td>{when(e.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}

async function EndpointPage(props: {
  c: Context<SettingsEnv>;
  id: number;
  secret?: string;
  form?: { values: FormValues; errors: Record<string, string> };
  notice?: string;
  error?: string;
}) {
  const { c, id } = props;
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  const e = await findEndpoint(c.get("db"), user.companyId, id);
  if (!e) return undefined;
  const deliveries = await recentDeliveries(c.get("db"), user.companyId, id);
  const values = props.form?.values ?? { url: e.url, events: e.events.join(" "), description: e.description ?? "" };
  const base = `/settings/webhooks/${id}`;
  return (
    <Layout title="Webhook endpoint" user={user} csrfToken={csrf} current="/settings/webhooks">
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.secret && <SecretShown secret={props.secret} heading="The endpoint's new signing secret" />}
      <p>
        <a href="/settings/webhooks">All endpoints</a>
      </p>
      <p data-testid="endpoint-status">{e.enabled ? "enabled" : `disabled${e.disabledReason ? `: ${e.disabledReason}` : ""}`}</p>
      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit</h2>
        <form method="post" action={base} class="stack" novalidate>
          <CsrfInput token={csrf} />
          <EndpointFields values={values} errors={props.form?.errors ?? {}} />
          <button type="submit">Save</button>
        </form>
      </section>
      <section aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <RowAction
          action={`${base}/${e.enabled ? "disable" : "enable"}`}
          csrf={csrf}
          kind="secondary"
          testid={e.enabled ? "disable" : "enable"}
        >
          {e.enabled ? "Disable" : "Enable"}
        </RowAction>
        <RowAction action={`${base}/rotate-secret`} csrf={csrf} kind="secondary" testid="rotate-secret">
          Rotate secret (the old one signs beside it for 24 hours)
        </RowAction>
        <RowAction action={`${base}/delete`} csrf={csrf} testid="delete">
          Delete with its delivery log
        </RowAction>
      </section>
      <div class="table-wrap">
        <table>
          <caption>Recent deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map(({ delivery: d, event }) => (
              <tr data-testid="delivery-row" data-delivery-id={String(d.id)} data-status={d.status}>
                <td>
                  {event.type} <code>{event.eventId}</code>
                </td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.lastResponseStatus ?? d.lastError ?? "—"}</td>
                <td>{when(d.createdAt)}</td>
                <td>
                  {d.status !== "pending" && e.enabled && (
                    <RowAction action={`${base}/deliveries/${d.id}/resend`} csrf={csrf} kind="secondary" testid="resend">
                      Re-send
                    </RowAction>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}

/** The endpoint's page, or the missing page. */
async function endpointPage(c: Context<SettingsEnv>, props: Omit<Parameters<typeof EndpointPage>[0], "c">, status: 200 | 201 | 400 = 200) {
  const page = await EndpointPage({ c, ...props });
  return page ? c.html(page, status) : notFoundPage(c);
}

webhooksRoutes.get("/", async (c) => c.html(await ListPage({ c })));

webhooksRoutes.post("/", checkCsrf, async (c) => {
  const values = await formValues(c);
  const read = readEndpointForm(c, values);
  if (!read.body)
    return c.html(await ListPage({ c, form: { values, errors: read.errors }, error: "The endpoint was not added: see below." }), 400);
  const body = read.body;
  const { secret } = await change(c, (ch) => createEndpoint(ch, body, audit(c, "webhook_endpoint.created", urlAndEvents)));
  return c.html(await ListPage({ c, secret, notice: "The endpoint is added." }), 201);
});

webhooksRoutes.get("/:id", async (c) => {
  const id = pathId(c);
  return id === undefined ? notFoundPage(c) : endpointPage(c, { id });
});

webhooksRoutes.post("/:id", checkCsrf, async (c) => {
  const id = pathId(c);
  if (id === undefined) return notFoundPage(c);
  const values = await formValues(c);
  const read = readEndpointForm(c, values);
  if (!read.body) return endpointPage(c, { id, form: { values, errors: read.errors }, error: "Nothing was saved: see below." }, 400);
  const body = read.body;
  const row = await change(c, (ch) => updateEndpoint(ch, id, body, undefined, audit(c, "webhook_endpoint.updated", urlAndEvents)));
  if (!row) return notFoundPage(c);
  return endpointPage(c, { id, notice: "The endpoint is saved." });
});

for (const enabled of [true, false]) {
  webhooksRoutes.post(`/:id/${enabled ? "enable" : "disable"}`, checkCsrf, async (c) => {
    const id = pathId(c);
    if (id === undefined) return notFoundPage(c);
    const action = enabled ? "webhook_endpoint.enabled" : "webhook_endpoint.disabled";
    const row = await change(c, (ch) => updateEndpoint(ch, id, { enabled }, DISABLED_IN_SETTINGS, audit(c, action)));
    if (!row) return notFoundPage(c);
    return endpointPage(c, { id, notice: enabled ? "The endpoint is enabled." : "The endpoint is disabled: nothing is sent to it." });
  });
}

webhooksRoutes.post("/:id/rotate-secret", checkCsrf, async (c) => {
  const id = pathId(c);
  if (id === undefined) return notFoundPage(c);
  const rotated = await change(c, (ch) => rotateEndpointSecret(ch, id, audit(c, "webhook_endpoint.secret_rotated")));
  if (!rotated) return notFoundPage(c);
  return endpointPage(c, { id, secret: rotated.secret }, 201);
});

webhooksRoutes.post("/:id/delete", checkCsrf, async (c) => {
  const id = pathId(c);
  if (id === undefined) return notFoundPage(c);
  const deleted = await change(c, (ch) => deleteEndpoint(ch, id, audit(c, "webhook_endpoint.deleted")));
  if (deleted === undefined) return notFoundPage(c);
  return c.html(await ListPage({ c, notice: "The endpoint is deleted." }));
});

webhooksRoutes.post("/:id/deliveries/:delivery/resend", checkCsrf, async (c) => {
  const id = pathId(c);
  const deliveryId = pathId(c, "delivery");
  if (id === undefined || deliveryId === undefined) return notFoundPage(c);
  const outcome = await change(c, (ch) =>
    retryDelivery(ch, id, deliveryId, audit(c, "webhook_delivery.resent", { delivery_id: deliveryId }, id)),
  );
  if (!outcome.ok && outcome.reason === "missing") return notFoundPage(c);
  if (!outcome.ok)
    return endpointPage(
      c,
      {
        id,
        error:
          outcome.reason === "pending" ? "The delivery is still pending: it will be attempted." : "Enable the endpoint before re-sending.",
      },
      400,
    );
  return endpointPage(c, { id, notice: "The delivery is sent again." });
});
