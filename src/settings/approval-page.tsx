import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import { Change, type ChangeContext } from "../changes/change";
import type { AppEnv } from "../http/context";
import { createAttemptLimiter } from "../ratelimit/attempts";
import { approvalEvents } from "../routes/orders/approvals/events";
import { type Answer, answerApproval, approvalByDigest, type ProofShown, tokenDigest } from "../routes/orders/approvals/queries";
import type { SettingsEnv } from "./context";
import { securityHeaders } from "./guards";
import { ICON, Notice, STYLESHEET } from "./layout";
import { sameToken } from "./secrets";
import { visitorCsrf } from "./session";

/*
 * The public page of a proof approval (docs/approvals.md), `/approve/{token}`: no sign-in, the link's
 * token is the credential. Server-rendered, no script, this origin's stylesheet only (the settings area's
 * CSP and headers), `noindex`, no referrer. A wrong, expired or revoked token gets the same 404 page as a
 * missing one. Lookups and answers are throttled per link and per client. The request log writes the
 * path as `/approve/{token}` (http/request-context.ts).
 */

export const APPROVE_PREFIX = "/approve";
/** What a token looks like (43 base64url characters); anything else is missing without a lookup. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const NAME_MAX = 200;
const EMAIL_MAX = 320;
const COMMENT_MAX = 5000;
const WINDOW_SECONDS = 60;
/** Per minute: page views and answers, per link and per client address. */
const LIMITS = {
  lookup: { link: 60, client: 300 },
  answer: { link: 10, client: 30 },
} as const;

export const approvalPageApp = new Hono<SettingsEnv>().basePath(APPROVE_PREFIX);

/** The outer (API app's) context of each request, whose variables the page takes over (as the settings area does). */
const outer = new WeakMap<Request, Context<AppEnv>>();

approvalPageApp.use("*", async (c, next) => {
  const parent = outer.get(c.req.raw);
  if (parent) for (const [k, v] of Object.entries(parent.var)) c.set(k as keyof SettingsEnv["Variables"], v as never);
  await next();
  c.res.headers.set("X-Robots-Tag", "noindex, nofollow");
});
approvalPageApp.use("*", securityHeaders);

function Page(props: { shop?: string; title: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{props.shop ? `${props.title} · ${props.shop}` : props.title}</title>
        <link rel="icon" href={ICON} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET} />
      </head>
      <body>
        <header class="top">
          <div class="brand">
            <span class="shop" data-testid="shop-name">
              {props.shop ?? "Proof approval"}
            </span>
            <span class="area">Proof approval</span>
          </div>
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The one answer for every link that does not lead to an approval (none, wrong, expired, revoked). */
const missingPage = (c: Context<SettingsEnv>) =>
  c.html(
    <Page title="Link not valid">
      <p data-testid="missing">This link is not valid. It may have expired or been withdrawn. Ask the shop for a new one.</p>
    </Page>,
    404,
  );

/** Counts one attempt per link and per client; the 429 page when either is over its limit. */
async function throttled(c: Context<SettingsEnv>, kind: keyof typeof LIMITS, digest: string) {
  const policy = (who: "link" | "client") => ({ name: `approval-${kind}-${who}`, limit: LIMITS[kind][who], windowSeconds: WINDOW_SECONDS });
  const [byLink, byClient] = await Promise.all([
    createAttemptLimiter(c.env, policy("link")).attempt(digest),
    createAttemptLimiter(c.env, policy("client")).attempt(c.get("clientIp")),
  ]);
  if (byLink.allowed && byClient.allowed) return undefined;
  const wait = Math.max(byLink.allowed ? 0 : byLink.retryAfterSeconds, byClient.allowed ? 0 : byClient.retryAfterSeconds);
  c.header("Retry-After", String(wait));
  return c.html(
    <Page title="Too many requests">
      <p data-testid="throttled">Too many requests for this page. Try again in a minute.</p>
    </Page>,
    429,
  );
}

/** The form's CSRF token: the visitor's (cookie-bound) token, bound to this link too. */
const csrfFor = async (c: Context<SettingsEnv>, digest: string) => {
  await visitorCsrf(c);
  return tokenDigest(`approval-csrf:${c.get("csrfToken")}:${digest}`);
};

type Found = NonNullable<Awaited<ReturnType<typeof approvalByDigest>>>;

const words = (code: string) => code.replaceAll("_", " ");

/** "Screen print, front · Red (PMS 186 C), White · 10 × 12 in": where and how the proof is printed. */
function decorationLine(d: ProofShown["decorations"][number]) {
  const where = d.location === "other" && d.location_detail ? d.location_detail : words(d.location);
  const colors = d.colors.map((c) => (c.code ? `${c.name} (${c.code})` : c.name)).join(", ");
  const size = d.width && d.height ? `${Number(d.width)} × ${Number(d.height)} ${d.unit ?? ""}`.trim() : "";
  const method = words(d.method);
  return [`${method[0].toUpperCase()}${method.slice(1)}, ${where}`, colors, size].filter(Boolean).join(" · ");
}

const when = (d: Date | null) => (d ? d.toUTCString() : "");

function ApprovalView(props: { found: Found; csrf: string; error?: string; values?: Record<string, string> }) {
  const { found, csrf, error, values = {} } = props;
  const { approval, status } = found;
  return (
    <Page shop={found.shop} title={found.title}>
      {approval.message && <p data-testid="message">{approval.message}</p>}
      <h2>Proofs</h2>
      <ul data-testid="proofs">
        {found.current.map((a) => (
          <li>
            {[a.print_method?.replaceAll("_", " "), a.placements.join(", "), a.colors.join(", ")].filter(Boolean).join(" · ") ||
              `Artwork ${a.id}`}{" "}
            {a.preview_url && (
              <a href={a.preview_url} rel="noreferrer noopener" referrerpolicy="no-referrer" target="_blank">
                Open the proof
              </a>
            )}
            {a.decorations.length > 0 && (
              <ul data-testid="proof-decorations">
                {a.decorations.map((d) => (
                  <li>{decorationLine(d)}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {approval.includeTotal && (
        <p data-testid="total">
          Order total: <strong>{approval.total}</strong>
        </p>
      )}
      {status === "approved" && (
        <Notice kind="ok">
          <span data-testid="answer">
            Approved by {approval.responderName} on {when(approval.respondedAt)}.
          </span>
        </Notice>
      )}
      {status === "changes_requested" && (
        <Notice kind="ok">
          <span data-testid="answer">
            Changes requested on {when(approval.respondedAt)}: {approval.comment}
          </span>
        </Notice>
      )}
      {status === "stale" && (
        <Notice kind="error">
          <span data-testid="stale">
            The proofs or the total changed after this link was sent, so it can no longer be answered. Ask the shop for a new link.
          </span>
        </Notice>
      )}
      {status === "pending" && (
        <>
          {error && <Notice kind="error">{error}</Notice>}
          <p class="hint">Expires {when(approval.expiresAt)}. One answer only.</p>
          <h2>Approve</h2>
          <form method="post" class="stack" data-testid="approve-form">
            <input type="hidden" name="_csrf" value={csrf} />
            <input type="hidden" name="answer" value="approve" />
            <label for="name">Your name</label>
            <input id="name" name="name" required maxlength={NAME_MAX} autocomplete="name" value={values.name} />
            <label for="email">Your e-mail (optional)</label>
            <input id="email" name="email" type="email" maxlength={EMAIL_MAX} autocomplete="email" value={values.email} />
            <button type="submit" data-testid="approve">
              Approve
            </button>
          </form>
          <h2>Request changes</h2>
          <form method="post" class="stack" data-testid="changes-form">
            <input type="hidden" name="_csrf" value={csrf} />
            <input type="hidden" name="answer" value="changes" />
            <label for="comment">What should change?</label>
            <textarea id="comment" name="comment" required maxlength={COMMENT_MAX} rows={4}>
              {values.comment}
            </textarea>
            <label for="changes-name">Your name (optional)</label>
            <input id="changes-name" name="name" maxlength={NAME_MAX} autocomplete="name" />
            <button type="submit" class="secondary" data-testid="request-changes">
              Request changes
            </button>
          </form>
        </>
      )}
    </Page>
  );
}

/** The link's approval, when it is one a customer may see (not revoked, not expired unanswered). */
async function lookup(c: Context<SettingsEnv>, digest: string) {
  const found = await approvalByDigest(c.get("db"), digest);
  return found && found.status !== "revoked" && found.status !== "expired" ? found : undefined;
}

approvalPageApp.get("/:token", async (c) => {
  const token = c.req.param("token");
  const digest = await tokenDigest(token);
  const refused = await throttled(c, "lookup", digest);
  if (refused) return refused;
  const found = TOKEN.test(token) ? await lookup(c, digest) : undefined;
  if (!found) return missingPage(c);
  return c.html(<ApprovalView found={found} csrf={await csrfFor(c, digest)} />, 200);
});

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The answer the form sent, or the message saying what is missing. */
function readAnswer(form: Record<string, unknown>): Answer | string {
  const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : "");
  const name = text("name");
  if (name.length > NAME_MAX) return `Your name can be at most ${NAME_MAX} characters.`;
  if (text("answer") === "approve") {
    const email = text("email");
    if (!name) return "Enter your name to approve.";
    if (email && (email.length > EMAIL_MAX || !EMAIL.test(email))) return "Enter a valid e-mail address, or leave it empty.";
    return { answer: "approved", name, email: email || null };
  }
  if (text("answer") === "changes") {
    const comment = text("comment");
    if (!comment) return "Say what should change.";
    if (comment.length > COMMENT_MAX) return `The comment can be at most ${COMMENT_MAX} characters.`;
    return { answer: "changes_requested", comment, name: name || null };
  }
  return "Choose Approve or Request changes.";
}

approvalPageApp.post("/:token", async (c) => {
  const token = c.req.param("token");
  const digest = await tokenDigest(token);
  const refused = await throttled(c, "answer", digest);
  if (refused) return refused;
  const found = TOKEN.test(token) ? await lookup(c, digest) : undefined;
  if (!found) return missingPage(c);
  const csrf = await csrfFor(c, digest);
  // Answered, or stale: nothing to take, whatever the form says.
  if (found.status !== "pending") return c.html(<ApprovalView found={found} csrf={csrf} />, 409);
  const form = await c.req.parseBody();
  if (typeof form._csrf !== "string" || !(await sameToken(form._csrf, csrf))) {
    return c.html(
      <Page title="Form expired">
        <p data-testid="csrf-failed">
          This form has expired or did not come from this page, so nothing was sent. Reload the page and try again.
        </p>
      </Page>,
      403,
    );
  }
  const answer = readAnswer(form);
  if (typeof answer === "string") {
    const values = Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === "string"));
    return c.html(<ApprovalView found={found} csrf={csrf} error={answer} values={values} />, 400);
  }
  // The answer is written as the approval's company's change (its event, its webhooks), with no token of the API.
  const context: ChangeContext = {
    env: c.env,
    get: ((key: string) =>
      key === "auth"
        ? { companyId: found.approval.companyId }
        : key === "admitted"
          ? async () => {}
          : c.get(key as never)) as ChangeContext["get"],
    // The customer is no user or token of the company (who answered is in the approval): the system's, in this request.
    origin: { actor: { type: "system", id: null }, requestId: c.get("requestId") },
  };
  const change = new Change(context, c.get("db"), false);
  const written = await answerApproval(change, found.approval.id, answer);
  if (written) {
    change.objects(approvalEvents, () => JSON.stringify(written));
    change.publish();
  }
  // Another answer won, or the approval went stale meanwhile: the page says which. Else it shows this answer.
  return c.redirect(`${APPROVE_PREFIX}/${token}`, 303);
});

approvalPageApp.all("*", (c) => missingPage(c));
approvalPageApp.onError((err, c) => {
  c.get("logger")?.error("approval page failed", { error: err });
  return c.html(
    <Page title="Something went wrong">
      <p data-testid="error-message">The page could not be shown. Try again in a moment.</p>
    </Page>,
    503,
  );
});

/** Serves a request the app routed to `/approve/…` (mount.ts), with its variables. */
export function serveApprovalPage(c: Context<AppEnv>): Response | Promise<Response> {
  outer.set(c.req.raw, c);
  let ctx: Context["executionCtx"] | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Not in a Worker: none.
  }
  return approvalPageApp.fetch(c.req.raw, c.env, ctx);
}
