import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import { readBytes } from "../platform/read-text";
import { rowsOf } from "../platform/sql-kit";
import { createAttemptLimiter } from "../ratelimit/attempts";
import { webhookUrlProblem } from "../webhooks/url";
import { oauthError, randomHex, redirectUriProblem } from "./protocol";

/**
 * OAuth clients: registered (RFC 7591) or known by their Client ID Metadata Document (an https
 * `client_id` URL, fetched under the outbound-URL rules of src/webhooks/url.ts and kept for an hour).
 */

export interface KnownClient {
  id: number;
  clientId: string;
  kind: "dcr" | "cimd";
  name: string;
  clientUri: string | null;
  redirectUris: string[];
}

/** Registrations one caller (address) may make per hour. */
export const REGISTRATIONS_PER_HOUR = 20;
/** A metadata document is fetched again after this long. */
const CIMD_CACHE_SECONDS = 3600;
const CIMD_MAX_BYTES = 16 * 1024;
const CIMD_TIMEOUT_MS = 5000;
const MAX_REDIRECT_URIS = 10;

type Row = {
  id: number;
  client_id: string;
  kind: "dcr" | "cimd";
  name: string;
  client_uri: string | null;
  redirect_uris: string[];
  fresh: boolean;
};

const known = (r: Row): KnownClient => ({
  id: r.id,
  clientId: r.client_id,
  kind: r.kind,
  name: r.name,
  clientUri: r.client_uri,
  redirectUris: r.redirect_uris,
});

/** Validated client metadata (DCR body or metadata document), or the problem. */
function parseMetadata(body: unknown): { name: string | null; clientUri: string | null; redirectUris: string[] } | string {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) return `invalid client metadata: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`;
  const m = parsed.data;
  if (m.redirect_uris.length === 0 || m.redirect_uris.length > MAX_REDIRECT_URIS)
    return `redirect_uris: between 1 and ${MAX_REDIRECT_URIS} are needed`;
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return `redirect_uris: ${uri}: ${problem}`;
  }
  if (m.token_endpoint_auth_method && m.token_endpoint_auth_method !== "none")
    return "token_endpoint_auth_method: only public clients (none) are supported";
  if (m.grant_types?.some((g) => g !== "authorization_code" && g !== "refresh_token"))
    return "grant_types: only authorization_code and refresh_token are supported";
  if (m.response_types?.some((t) => t !== "code")) return "response_types: only code is supported";
  const name = m.client_name?.trim().slice(0, 100) || null;
  return { name, clientUri: m.client_uri ?? null, redirectUris: m.redirect_uris };
}

/** `POST /oauth/register` (RFC 7591): public clients only, limited per caller. */
export async function registerClient(c: Context<AppEnv>) {
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const limit = await createAttemptLimiter(c.env, { name: "oauth-register", limit: REGISTRATIONS_PER_HOUR, windowSeconds: 3600 }).attempt(
    ip,
  );
  if (!limit.allowed) {
    c.header("Retry-After", String(limit.retryAfterSeconds));
    return oauthError(c, 429, "too_many_requests", "Too many client registrations from this address; try again later");
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return oauthError(c, 400, "invalid_client_metadata", "The body must be a JSON object");
  }
  const metadata = parseMetadata(body);
  if (typeof metadata === "string")
    return oauthError(c, 400, metadata.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata", metadata);
  const clientId = `crm_client_${randomHex().slice(0, 32)}`;
  const name = metadata.name ?? "Unnamed client";
  const [row] = rowsOf<{ created: number }>(
    await c.get("db").execute(sql`
      insert into oauth_clients (client_id, kind, name, client_uri, redirect_uris, registered_by)
      values (${clientId}, 'dcr', ${name}, ${metadata.clientUri}, ${textArray(metadata.redirectUris)}, ${ip})
      returning extract(epoch from created_at)::bigint as created`),
  );
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      client_id: clientId,
      client_id_issued_at: Number(row.created),
      client_name: name,
      ...(metadata.clientUri ? { client_uri: metadata.clientUri } : {}),
      redirect_uris: metadata.redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    },
    201,
  );
}

/** A text[] parameter (through JSON: the driver has no array parameters over HTTP). */
const textArray = (values: string[]) => sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/** Whether `clientId` is a metadata-document URL (CIMD): an https URL with a path (or http on the local stack, as webhooks allow). */
export const isMetadataUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

/**
 * The client of this `client_id`: a registered one from the database; a metadata document from the
 * database when fetched within the hour, else fetched now (and kept). A string says why not.
 */
export async function findClient(c: Context<AppEnv>, clientId: string): Promise<KnownClient | string> {
  const db = c.get("db");
  const [row] = rowsOf<Row>(
    await db.execute(sql`
      select id, client_id, kind, name, client_uri, redirect_uris, fetched_at > now() - make_interval(secs => ${CIMD_CACHE_SECONDS}) as fresh
      from oauth_clients where client_id = ${clientId}`),
  );
  if (row && (row.kind === "dcr" || row.fresh)) return known(row);
  if (!isMetadataUrl(clientId)) return "unknown client_id";
  const fetched = await fetchMetadataDocument(clientId, c.get("config").WEBHOOK_ALLOW_LOCAL_HTTP);
  if (typeof fetched === "string") return fetched;
  const [saved] = rowsOf<Row>(
    await db.execute(sql`
      insert into oauth_clients (client_id, kind, name, client_uri, redirect_uris)
      values (${clientId}, 'cimd', ${fetched.name ?? new URL(clientId).host}, ${fetched.clientUri}, ${textArray(fetched.redirectUris)})
      on conflict (client_id) do update set name = excluded.name, client_uri = excluded.client_uri,
        redirect_uris = excluded.redirect_uris, fetched_at = now()
      returning id, client_id, kind, name, client_uri, redirect_uris, true as fresh`),
  );
  return known(saved);
}

/**
 * Fetches a Client ID Metadata Document: the URL must pass the outbound-URL rules (https, a public host,
 * no private address, no credentials; http://127.0.0.1 only where WEBHOOK_ALLOW_LOCAL_HTTP allows it),
 * have a path, answer within 5 s with at most 16 KiB of JSON whose `client_id` is the URL itself.
 */
async function fetchMetadataDocument(url: string, allowLocalHttp: boolean) {
  const problem = webhookUrlProblem(url, { allowLocalHttp });
  if (problem) return `client_id URL refused: ${problem}`;
  if (new URL(url).pathname === "/") return "client_id URL refused: it must have a path";
  let res: Response;
  const signal = AbortSignal.timeout(CIMD_TIMEOUT_MS);
  try {
    res = await fetch(url, { headers: { accept: "application/json" }, redirect: "manual", signal });
  } catch {
    return "client metadata document could not be fetched";
  }
  if (res.status !== 200) {
    res.body?.cancel().catch(() => {});
    return `client metadata document answered ${res.status}`;
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBytes(res.body, CIMD_MAX_BYTES, 0, signal);
  } catch {
    return "client metadata document could not be read in time";
  }
  if (!bytes) return `client metadata document is over ${CIMD_MAX_BYTES} bytes`;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return "client metadata document is not JSON";
  }
  if ((doc as { client_id?: unknown })?.client_id !== url) return "client metadata document's client_id is not its URL";
  const metadata = parseMetadata(doc);
  return typeof metadata === "string" ? `client metadata document: ${metadata}` : metadata;
}
