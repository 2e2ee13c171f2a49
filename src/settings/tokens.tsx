import { type Context, Hono } from "hono";
import {
  type Actor,
  createToken,
  listTokens,
  ROLL_OVERLAPS,
  type RollOverlap,
  revokeToken,
  rollToken,
  TOKEN_EXPIRY_DAYS,
  type TokenRow,
  tokenInputErrors,
  tokenStatus,
} from "../http/tokens";
import type { SettingsEnv } from "./context";
import { notFoundPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, FieldError, fieldAria, Layout, Notice, RowAction, ShownOnce } from "./layout";

/**
 * `/settings/tokens`: the company's API tokens through the one token service (src/http/tokens.ts, which the
 * CLI uses too): create (shown once), list, roll (with an overlap), revoke. A new token is rendered in the
 * POST's own answer (no-store, never in a URL) and never again. Another company's token ids answer as missing.
 */
export const tokensRoutes = new Hono<SettingsEnv>();

const OVERLAP_LABELS: Record<RollOverlap, string> = {
  none: "none: the old token stops now",
  "1h": "1 hour",
  "24h": "24 hours",
  "7d": "7 days",
};

const day = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace("T", " ")} UTC` : "—");

interface Shown {
  token: string;
  row: TokenRow;
  rolledFrom?: TokenRow;
}

interface FormState {
  values?: { name: string; scope: string; expires_in_days: string };
  errors?: Record<string, string>;
}

async function TokensPage({
  c,
  shown,
  form,
  notice,
  error,
}: {
  c: Context<SettingsEnv>;
  shown?: Shown;
  form?: FormState;
  notice?: string;
  error?: string;
}) {
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  const tokens = await listTokens(c.get("db"), { companyId: user.companyId });
  const origin = new URL(c.req.url).origin;
  const values = form?.values ?? { name: "", scope: "read", expires_in_days: "90" };
  const errors = form?.errors ?? {};
  return (
    <Layout title="Tokens" user={user} csrfToken={csrf} current="/settings/tokens">
      {error && <Notice kind="error">{error}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {shown && (
        <ShownOnce
          id="new-token"
          heading={`${shown.rolledFrom ? "Your rolled token" : "Your new token"}: ${shown.row.name}`}
          value={shown.token}
          copyLabel="Copy token"
          after={
            <>
              <p>Try it:</p>
              <pre>
                <code data-testid="curl-example">{`curl -H "Authorization: Bearer ${shown.token}" ${origin}/api/v1/me`}</code>
              </pre>
            </>
          }
        >
          <p>Copy it now: it is shown this once and never again. Only its last four characters are kept for the list.</p>
        </ShownOnce>
      )}
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a token</h2>
        <form method="post" action="/settings/tokens" class="stack" data-testid="create-token-form" novalidate>
          <CsrfInput token={csrf} />
          <label for="token-name">Name</label>
          <input
            id="token-name"
            name="name"
            required
            maxlength={100}
            value={values.name}
            autocomplete="off"
            {...fieldAria("name", errors)}
          />
          <FieldError name="name" errors={errors} />
          <label for="token-scope">Scope</label>
          <select id="token-scope" name="scope" {...fieldAria("scope", errors)}>
            <option value="read" selected={values.scope === "read"}>
              read: GET operations only
            </option>
            <option value="write" selected={values.scope === "write"}>
              write: every operation
            </option>
          </select>
          <FieldError name="scope" errors={errors} />
          <label for="token-expiry">Expires</label>
          <select id="token-expiry" name="expires_in_days" {...fieldAria("expires_in_days", errors)}>
            {TOKEN_EXPIRY_DAYS.map((d) => (
              <option value={String(d)} selected={values.expires_in_days === String(d)}>
                in {d} days
              </option>
            ))}
            <option value="" selected={values.expires_in_days === ""}>
              never
            </option>
          </select>
          <FieldError name="expires_in_days" errors={errors} />
          <button type="submit">Create token</button>
        </form>
      </section>
      <div class="table-wrap">
        <table>
          <caption>{user.companyName}'s API tokens, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Ends in</th>
              <th scope="col">Made by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => {
              const status = tokenStatus(t);
              const label = t.name ?? `token ${t.id}`;
              return (
                <tr data-testid="token-row" data-token-id={String(t.id)} data-status={status}>
                  <td>{t.name ?? <span class="muted">(no name)</span>}</td>
                  <td>{t.scope}</td>
                  <td>
                    <code data-testid="last-four">{t.lastFour ? `…${t.lastFour}` : "—"}</code>
                  </td>
                  <td>{t.createdByEmail ?? (t.createdByUserId === null ? "operator (CLI)" : "a removed user")}</td>
                  <td>{day(t.createdAt)}</td>
                  <td>{t.lastUsedAt ? day(t.lastUsedAt) : "never"}</td>
                  <td>{t.expiresAt ? day(t.expiresAt) : "never"}</td>
                  <td data-testid="token-status">{status}</td>
                  <td>
                    {status === "active" && (
                      <>
                        <form method="post" action={`/settings/tokens/${t.id}/roll`} class="inline">
                          <CsrfInput token={csrf} />
                          <label for={`overlap-${t.id}`}>Old token keeps working for</label>
                          <select id={`overlap-${t.id}`} name="overlap">
                            {(Object.keys(ROLL_OVERLAPS) as RollOverlap[]).map((o) => (
                              <option value={o} selected={o === "24h"}>
                                {OVERLAP_LABELS[o]}
                              </option>
                            ))}
                          </select>
                          <button type="submit" class="secondary" data-testid="roll" aria-label={`Roll ${label}`}>
                            Roll
                          </button>
                        </form>
                        <RowAction action={`/settings/tokens/${t.id}/revoke`} csrf={csrf} testid="revoke" label={`Revoke ${label}`}>
                          Revoke
                        </RowAction>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}

const actorOf = (c: Context<SettingsEnv>): Actor => ({
  type: "user",
  userId: c.get("user").id,
  clientIp: c.get("clientIp"),
  requestId: c.get("requestId"),
});

/** A token id from the path, or undefined (answered as a missing token). */
const tokenId = (c: Context<SettingsEnv>) => {
  const raw = c.req.param("id") ?? "";
  return /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
};

tokensRoutes.get("/", async (c) => c.html(<TokensPage c={c} />));

tokensRoutes.post("/", checkCsrf, async (c) => {
  const values = { name: await field(c, "name"), scope: await field(c, "scope"), expires_in_days: await field(c, "expires_in_days") };
  const expiresInDays =
    values.expires_in_days === "" ? null : /^\d{1,4}$/.test(values.expires_in_days) ? Number(values.expires_in_days) : Number.NaN;
  const errors = tokenInputErrors({ name: values.name, scope: values.scope, expiresInDays });
  if (Object.keys(errors).length > 0)
    return c.html(<TokensPage c={c} form={{ values, errors }} error="The token was not created: see below." />, 400);
  const made = await createToken(c.get("db"), {
    companyId: c.get("user").companyId,
    name: values.name.trim(),
    scope: values.scope as "read" | "write",
    expiresInDays,
    actor: actorOf(c),
  });
  return c.html(<TokensPage c={c} shown={made} />, 201);
});

tokensRoutes.post("/:id/revoke", checkCsrf, async (c) => {
  const id = tokenId(c);
  if (id === undefined) return notFoundPage(c);
  const revoked = await revokeToken(c.get("db"), c.get("config"), { tokenId: id, companyId: c.get("user").companyId, actor: actorOf(c) });
  if (!revoked) return notFoundPage(c);
  const notice = revoked.propagated
    ? "The token is revoked: it answers 401 from the next request on."
    : "The token is revoked. Some servers may accept it for up to 30 seconds more.";
  return c.html(<TokensPage c={c} notice={notice} />);
});

tokensRoutes.post("/:id/roll", checkCsrf, async (c) => {
  const id = tokenId(c);
  const overlap = await field(c, "overlap");
  if (id === undefined) return notFoundPage(c);
  if (!(overlap in ROLL_OVERLAPS)) return c.html(<TokensPage c={c} error="Choose how long the old token keeps working." />, 400);
  const rolled = await rollToken(c.get("db"), c.get("config"), {
    tokenId: id,
    companyId: c.get("user").companyId,
    overlap: overlap as RollOverlap,
    actor: actorOf(c),
  });
  // A revoked or expired token of the company cannot be rolled; another company's is missing.
  if (!rolled) return notFoundPage(c);
  return c.html(<TokensPage c={c} shown={{ token: rolled.token, row: rolled.row, rolledFrom: rolled.old }} />, 201);
});
