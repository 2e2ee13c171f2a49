/**
 * Response headers every route sends, declared once on every operation of the OpenAPI document
 * (zod-openapi declares them per route only, and these come from middleware, not from handlers).
 * `required`: sent on every answer that declares the header (the rate-limit ones are not while the
 * limiter is unavailable, nor CORS for an origin not allowed).
 */
const HEADERS = {
  "X-Request-Id": {
    description: "Id of this request, also in the logs; a sane incoming X-Request-Id is kept",
    required: true,
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": {
    description: "Requests allowed per 60 s window for this API key (absent while the limiter is unavailable)",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix time (seconds) when the window frees capacity", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before retrying", required: true, schema: { type: "integer" } },
  "Access-Control-Allow-Origin": {
    description: "The calling page's origin, sent only when it is one of the allowed origins (CORS_ALLOWED_ORIGINS; none by default)",
    schema: { type: "string" },
  },
} as const;

type Doc = {
  paths?: Record<string, Record<string, { security?: unknown[]; responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
  components?: Record<string, unknown>;
};

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

export function withResponseHeaders<T extends object>(document: T): T {
  const doc = document as Doc;
  doc.components = { ...doc.components, headers: { ...(doc.components?.headers as object), ...HEADERS } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      const authenticated = Boolean(op.security?.length);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const headers: Record<string, unknown> = {
          "X-Request-Id": ref("X-Request-Id"),
          "Access-Control-Allow-Origin": ref("Access-Control-Allow-Origin"),
        };
        // Rate-limit headers on every answer given after the limiter ran (not on 401: no key to count).
        if (authenticated && status !== "401") {
          for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const) headers[h] = ref(h);
        }
        // 503 on an authenticated operation is the database being unavailable, always with Retry-After.
        if (status === "429" || (authenticated && status === "503")) headers["Retry-After"] = ref("Retry-After");
        response.headers = { ...response.headers, ...headers };
      }
    }
  }
  return document;
}
