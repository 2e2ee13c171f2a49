import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { invalid } from "./errors";

/**
 * Rejects U+0000 in the path or the query string (400 naming where): PostgreSQL cannot store or
 * compare it, so without this check a `%00` would reach a query and fail there as a 500.
 * Request bodies get the same check in the JSON body guard.
 */
export const paramsGuard = createMiddleware<AppEnv>(async (c, next) => {
  // A NUL or a malformed escape can only arrive percent-encoded (the URL parser encodes control
  // characters): a URL without "%" needs no parsing, which is most requests.
  if (!c.req.url.includes("%")) return next();
  const url = new URL(c.req.url);
  const offending: { field: string; message: string }[] = [];
  let path = url.pathname;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    offending.push({ field: "(path)", message: "Malformed percent-encoding" });
  }
  if (path.includes("\0")) offending.push({ field: "(path)", message: "The path cannot contain the NUL character (U+0000)" });
  for (const [key, value] of url.searchParams) {
    if (key.includes("\0") || value.includes("\0")) {
      offending.push({ field: key.replace(/\0/g, "\\u0000"), message: "Query parameters cannot contain the NUL character (U+0000)" });
    }
  }
  if (offending.length) throw invalid("Invalid characters in the request URL", offending);
  await next();
});
