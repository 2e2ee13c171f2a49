import type { Child } from "hono/jsx";
import type { SettingsUser } from "./context";
import { PASSWORD_MAX, PASSWORD_MIN } from "./passwords";

/** Same-origin static files (public/settings/, served by Workers static assets): no inline style or script. */
export const STYLESHEET = "/settings/assets/settings.css";
export const SCRIPT = "/settings/assets/settings.js";
/** Named, so the browser does not ask for /favicon.ico (a 404 in the console). */
export const ICON = "/settings/assets/favicon.svg";

/** The hidden input every state-changing form carries (checked by `checkCsrf`). */
export const CsrfInput = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

const NAV: { href: string; label: string; owners?: boolean }[] = [
  { href: "/settings/tokens", label: "Tokens" },
  { href: "/settings/webhooks", label: "Webhooks" },
  { href: "/settings/connected-apps", label: "Connected apps" },
  { href: "/settings/request-logs", label: "Request logs" },
  { href: "/settings/users", label: "Users", owners: true },
  { href: "/settings/audit-log", label: "Audit log" },
  { href: "/settings/account", label: "Account" },
];

/**
 * Every settings page: the shop's name at the top, the navigation (Users for owners only) with the
 * current page marked, and sign-out (a form: it changes something, so it is a POST with `_csrf`).
 * Signed-out pages (sign-in, setup, errors) pass no user and get neither. `current`: the nav entry's path.
 */
export function Layout(props: { title: string; user?: SettingsUser; csrfToken?: string; current?: string; children?: Child }) {
  const { title, user, csrfToken, current, children } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{user ? `${title} · ${user.companyName}` : `${title} · CRM API settings`}</title>
        <link rel="icon" href={ICON} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET} />
        <script src={SCRIPT} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="brand">
            <span class="shop" data-testid="shop-name">
              {user ? user.companyName : "CRM API"}
            </span>
            <span class="area">Developer settings</span>
          </div>
          {user && (
            <nav aria-label="Settings">
              <ul>
                {NAV.filter((n) => !n.owners || user.role === "owner").map((n) => (
                  <li>
                    <a href={n.href} aria-current={current === n.href ? "page" : undefined}>
                      {n.label}
                    </a>
                  </li>
                ))}
                <li>
                  <form method="post" action="/settings/sign-out" class="inline">
                    {csrfToken && <CsrfInput token={csrfToken} />}
                    <button type="submit" class="link" data-testid="sign-out">
                      Sign out
                    </button>
                  </form>
                </li>
              </ul>
            </nav>
          )}
        </header>
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {children}
        </main>
        <footer>
          {user && (
            <p>
              Signed in as {user.email} ({user.role})
            </p>
          )}
          <p>
            <a href="/api/v1/docs">API reference</a>
          </p>
        </footer>
      </body>
    </html>
  );
}

/** A message above a form: `role="alert"` for errors so screen readers announce them. */
export const Notice = ({ kind, children }: { kind: "error" | "ok"; children?: Child }) => (
  <p class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"} data-testid={`notice-${kind}`}>
    {children}
  </p>
);

/** A new password and its confirmation (`password`, `password_confirmation`), with the length rule said. */
export function NewPasswordFields({ label, again, hint }: { label: string; again: string; hint: string }) {
  const field = { type: "password", autocomplete: "new-password", required: true, minlength: PASSWORD_MIN, maxlength: PASSWORD_MAX };
  return (
    <>
      <label for="password">{label}</label>
      <input id="password" name="password" {...field} aria-describedby="password-hint" />
      <p id="password-hint" class="hint">
        {PASSWORD_MIN} to {PASSWORD_MAX} characters. {hint}
      </p>
      <label for="password_confirmation">{again}</label>
      <input id="password_confirmation" name="password_confirmation" {...field} />
    </>
  );
}

/** A form's errors by field name (`errors.name`), shown under each field. */
export type FieldErrors = Record<string, string | undefined>;

/** The attributes that tie a control to its error (see FieldError): none while the field is valid. */
export const fieldAria = (name: string, errors: FieldErrors) =>
  errors[name] ? { "aria-invalid": "true" as const, "aria-describedby": `${name}-error` } : {};

/** A field's error under its control, the target of the control's `aria-describedby`. */
export const FieldError = ({ name, errors }: { name: string; errors: FieldErrors }) =>
  errors[name] ? (
    <p class="field-error" id={`${name}-error`} data-testid={`error-${name}`}>
      {errors[name]}
    </p>
  ) : null;

/**
 * A form of one button that POSTs to `action` with `_csrf` (a row's Revoke, Remove, Re-send; a page's
 * actions). `label` is the button's `aria-label` where its text alone does not say which row it acts on.
 */
export function RowAction(props: {
  action: string;
  csrf: string;
  testid: string;
  kind?: "danger" | "secondary";
  label?: string;
  children: Child;
}) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfInput token={props.csrf} />
      <button type="submit" class={props.kind ?? "danger"} data-testid={props.testid} aria-label={props.label}>
        {props.children}
      </button>
    </form>
  );
}

/**
 * A secret (token, signing secret, setup link) shown this once, with a copy button the script reveals
 * where copying works. `id` names the code element (`data-testid` too) and the button's target.
 */
export function ShownOnce(props: { id: string; heading: Child; value: string; copyLabel: string; children?: Child; after?: Child }) {
  return (
    <section class="shown-once" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.heading}</h2>
      {props.children}
      <p>
        <code class="secret" id={props.id} data-testid={props.id}>
          {props.value}
        </code>
      </p>
      <button type="button" class="secondary" data-copy={props.id} hidden>
        {props.copyLabel}
      </button>
      {props.after}
    </section>
  );
}
