import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { SettingsEnv } from "./context";
import { Layout } from "./layout";

/** An error page of the area: the message, and the way back. */
export function errorPage(c: Context<SettingsEnv>, status: ContentfulStatusCode, title: string, message: string) {
  return c.html(
    <Layout title={title}>
      <p data-testid="error-message">{message}</p>
      <p>
        <a href="/settings">Back to the settings</a>
      </p>
    </Layout>,
    status,
  );
}

export const forbiddenPage = (c: Context<SettingsEnv>, message: string) => errorPage(c, 403, "Not allowed", message);

/** A failed CSRF check: nothing was changed. */
export const csrfFailedPage = (c: Context<SettingsEnv>) =>
  forbiddenPage(c, "This form has expired or did not come from this site, so nothing was changed. Go back, reload the page and try again.");

export const notFoundPage = (c: Context<SettingsEnv>) =>
  errorPage(c, 404, "Not found", "There is no such page, or it is not yours to see.");
