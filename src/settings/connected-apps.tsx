import { sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { approveRequest, denyRequest, listConnectedApps, type PendingRequest, pendingRequest, revokeGrants } from "../oauth/grants";
import { redirectWith } from "../oauth/protocol";
import { recordAudit } from "./audit";
import type { SettingsEnv } from "./context";
import { errorPage, notFoundPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, Layout, Notice, RowAction } from "./layout";

/**
 * The OAuth consent page (`/settings/oauth/consent/:key`, where `/oauth/authorize` sends the user after
 * sign-in) and the Connected apps page (`/settings/connected-apps`): each grant a user allowed, with revoke.
 */
export const consentRoutes = new Hono<SettingsEnv>();
export const connectedAppsRoutes = new Hono<SettingsEnv>();

const KEY = /^[0-9a-f]{64}$/;

const expired = (c: Context<SettingsEnv>) =>
  errorPage(
    c,
    400,
    "Request expired",
    "This authorization request is unknown or has expired. Start again from the app that sent you here.",
  );

/** Where the client is: the host of its metadata document (verified: the document is served there) or of its redirect URI. */
function ClientDescription({ request }: { request: PendingRequest }) {
  const redirectHost = new URL(request.redirectUri).host || request.redirectUri;
  return (
    <dl class="facts" data-testid="consent-client">
      <dt>App</dt>
      <dd data-testid="client-name">
        {request.clientName}
        {request.clientKind === "dcr" && <span class="muted"> (name given by the app, unverified)</span>}
      </dd>
      <dt>App's address</dt>
      <dd data-testid="client-address">
        {request.clientKind === "cimd" ? (
          <code>{request.clientId}</code>
        ) : (
          <>
            {request.clientUri ? <code>{request.clientUri}</code> : <span class="muted">not given</span>}
            <span class="muted"> (unverified)</span>
          </>
        )}
      </dd>
      <dt>Sends you back to</dt>
      <dd>
        <code data-testid="redirect-host">{redirectHost}</code>
      </dd>
    </dl>
  );
}

function ConsentPage({ c, request }: { c: Context<SettingsEnv>; request: PendingRequest }) {
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  return (
    <Layout title="Allow access?" user={user} csrfToken={csrf}>
      <p>
        An app asks to use the CRM API as <strong>{user.email}</strong> for{" "}
        <strong data-testid="consent-company">{user.companyName}</strong>.
      </p>
      <ClientDescription request={request} />
      <form method="post" action={`/settings/oauth/consent/${request.key}`} class="stack" data-testid="consent-form">
        <CsrfInput token={csrf} />
        <fieldset>
          <legend>Access</legend>
          {request.scope === "write" && (
            <label>
              <input type="radio" name="scope" value="write" checked data-testid="scope-write" /> Read and change the company's data (write)
            </label>
          )}
          <label>
            <input type="radio" name="scope" value="read" checked={request.scope === "read"} data-testid="scope-read" /> Read the company's
            data only (read)
          </label>
        </fieldset>
        <p class="hint">You can revoke access at any time on the Connected apps page.</p>
        <div class="actions">
          <button type="submit" name="decision" value="allow" data-testid="allow">
            Allow
          </button>
          <button type="submit" name="decision" value="deny" class="secondary" data-testid="deny">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}

consentRoutes.get("/:key", async (c) => {
  const key = c.req.param("key");
  const request = KEY.test(key) ? await pendingRequest(c.get("db"), key) : undefined;
  if (!request) return expired(c);
  c.set("formActionExtra", formTarget(request.redirectUri));
  return c.html(<ConsentPage c={c} request={request} />);
});

consentRoutes.post("/:key", checkCsrf, async (c) => {
  const key = c.req.param("key");
  const db = c.get("db");
  const request = KEY.test(key) ? await pendingRequest(db, key) : undefined;
  if (!request) return expired(c);
  const user = c.get("user");
  const issuer = new URL(c.req.url).origin;
  if ((await field(c, "decision")) !== "allow") {
    await denyRequest(db, key);
    return c.redirect(
      redirectWith(
        request.redirectUri,
        { error: "access_denied", error_description: "The user denied access", state: request.state },
        issuer,
      ),
      303,
    );
  }
  const scope = (await field(c, "scope")) === "write" && request.scope === "write" ? "write" : "read";
  const approved = await approveRequest(db, { key, companyId: user.companyId, userId: user.id, scope });
  if (!approved) return expired(c);
  c.get("defer")(
    recordAudit(db, {
      companyId: user.companyId,
      actor: { type: "user", id: user.id },
      action: "oauth.grant_created",
      targetType: "oauth_client",
      targetId: request.clientId,
      details: { scope, client_name: request.clientName },
      clientIp: c.get("clientIp"),
      requestId: c.get("requestId"),
    }),
  );
  return c.redirect(redirectWith(request.redirectUri, { code: approved.code, state: request.state }, issuer), 303);
});

/** The CSP source of the redirect URI the consent form's answer goes to: its origin, or its scheme for an app's own scheme. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

const day = (iso: string) => iso.slice(0, 10);

async function ConnectedAppsPage({ c, notice }: { c: Context<SettingsEnv>; notice?: string }) {
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  const apps = await listConnectedApps(c.get("db"), user.companyId);
  return (
    <Layout title="Connected apps" user={user} csrfToken={csrf} current="/settings/connected-apps">
      {notice && <Notice kind="ok">{notice}</Notice>}
      <p>
        Apps and assistants you or your colleagues allowed to use the API through OAuth (claude.ai, ChatGPT, Claude Code, Cursor, VS Code…).
        Revoking one ends its access at once.
      </p>
      {apps.length === 0 ? (
        <p data-testid="no-apps">No app is connected.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Allowed by</th>
                <th scope="col">Scope</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {apps.map((a) => (
                <tr data-testid="app-row" data-grant-id={String(a.id)}>
                  <td>
                    {a.clientName}
                    <br />
                    <code class="muted">{a.clientKind === "cimd" ? a.clientId : "registered client"}</code>
                  </td>
                  <td>{a.userEmail}</td>
                  <td>{a.scope}</td>
                  <td>{day(a.createdAt)}</td>
                  <td>{a.lastUsedAt ? day(a.lastUsedAt) : "never"}</td>
                  <td>
                    <RowAction
                      action={`/settings/connected-apps/${a.id}/revoke`}
                      csrf={csrf}
                      testid="revoke-app"
                      label={`Revoke ${a.clientName}`}
                    >
                      Revoke
                    </RowAction>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

connectedAppsRoutes.get("/", async (c) => c.html(await ConnectedAppsPage({ c })));

connectedAppsRoutes.post("/:id/revoke", checkCsrf, async (c) => {
  const raw = c.req.param("id");
  if (!/^\d{1,9}$/.test(raw)) return notFoundPage(c);
  const user = c.get("user");
  // Another company's grant is missing here: the same 404 as an unknown id.
  const revoked = await revokeGrants(c.get("db"), c.get("config"), sql`g.id = ${Number(raw)} and g.company_id = ${user.companyId}`);
  if (!revoked.length) return notFoundPage(c);
  c.get("defer")(
    recordAudit(c.get("db"), {
      companyId: user.companyId,
      actor: { type: "user", id: user.id },
      action: "oauth.grant_revoked",
      targetType: "oauth_grant",
      targetId: revoked[0],
      clientIp: c.get("clientIp"),
      requestId: c.get("requestId"),
    }),
  );
  return c.html(await ConnectedAppsPage({ c, notice: "The app's access is revoked: its tokens answer 401 from the next request on." }));
});
