import { basicAuth } from "../platform/basic-auth";
import { AccountingError, isFault } from "./errors";

/**
 * A small client for the QuickBooks Online Accounting API v3 (JSON): the invoice and customer
 * operations delivery needs. Every write carries a `requestid` chosen by the caller, so the service
 * answers a repeated request with its first response instead of applying it twice.
 */
export const MINOR_VERSION = "75";
export const DEFAULT_BASE_URL = "https://quickbooks.api.intuit.com";
export const DEFAULT_TOKEN_URL = "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer";
const TIMEOUT_MS = 30_000;
/** Error texts quote at most this much of a response body. */
const EXCERPT = 500;

/** Hands out access tokens; `refresh` replaces one the service rejected (401). */
export interface TokenSource {
  token(): Promise<string>;
  refresh(rejected: string): Promise<string>;
}

/** The parts of a v3 entity delivery reads back. */
export interface QboEntity {
  Id: string;
  SyncToken: string;
  [field: string]: unknown;
}

type Json = Record<string, unknown>;

export class QboClient {
  constructor(private readonly opts: { baseUrl: string; realmId: string; tokens: TokenSource }) {}

  async createCustomer(body: Json, requestId: string): Promise<QboEntity> {
    return (await this.call("POST", "customer", { body, requestId })).Customer as QboEntity;
  }

  async createInvoice(body: Json, requestId: string): Promise<QboEntity> {
    return (await this.call("POST", "invoice", { body, requestId })).Invoice as QboEntity;
  }

  /** Sparse update: only the fields in `body` change (a `Line` array replaces all lines). */
  async updateInvoice(body: Json & { Id: string; SyncToken: string }, requestId: string): Promise<QboEntity> {
    return (await this.call("POST", "invoice", { body: { ...body, sparse: true }, requestId })).Invoice as QboEntity;
  }

  async deleteInvoice(ref: { Id: string; SyncToken: string }, requestId: string): Promise<void> {
    await this.call("POST", "invoice", { body: ref, requestId, query: { operation: "delete" } });
  }

  async readInvoice(id: string): Promise<QboEntity> {
    return (await this.call("GET", `invoice/${encodeURIComponent(id)}`, {})).Invoice as QboEntity;
  }

  /**
   * One request; a 401 refreshes the access token once and repeats the request (same requestid:
   * the rejected one was never processed).
   */
  private async call(
    method: string,
    resource: string,
    opts: { body?: Json; requestId?: string; query?: Record<string, string> },
  ): Promise<Json> {
    const url = new URL(`${this.opts.baseUrl.replace(/\/$/, "")}/v3/company/${encodeURIComponent(this.opts.realmId)}/${resource}`);
    url.searchParams.set("minorversion", MINOR_VERSION);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    if (opts.requestId) url.searchParams.set("requestid", opts.requestId);

    let token = await this.opts.tokens.token();
    const what = `${method} ${resource}`;
    let reply = await this.send(method, url, token, what, opts.body);
    if (reply.status === 401) {
      token = await this.opts.tokens.refresh(token);
      reply = await this.send(method, url, token, what, opts.body);
      if (reply.status === 401) {
        throw new AccountingError(
          "connection",
          `accounting system rejected a freshly refreshed access token (401): ${excerpt(reply.text)}`,
        );
      }
    }
    return parseResponse(reply, what);
  }

  private send(method: string, url: URL, token: string, what: string, body?: Json): Promise<Reply> {
    const headers = {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      ...(body ? { "content-type": "application/json" } : {}),
    };
    return exchange(url, { method, headers, body: body ? JSON.stringify(body) : undefined }, { who: "accounting system", what });
  }
}

/** An answer read whole: its status, its text and that text as JSON (undefined when it is not JSON). */
interface Reply {
  status: number;
  ok: boolean;
  text: string;
  body: Json | undefined;
}

/**
 * One request to the service or its token endpoint, with the timeout, read whole. Unreachable, 429
 * and 5xx are transient; anything else is the caller's to judge.
 */
async function exchange(url: URL | string, init: RequestInit, about: { who: string; what?: string }): Promise<Reply> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new AccountingError("transient", `${about.who} unreachable: ${(e as Error).message}`);
  }
  const text = await res.text();
  if (res.status === 429 || res.status >= 500) {
    throw new AccountingError("transient", `${about.who} answered ${res.status}${about.what ? ` to ${about.what}` : ""}: ${excerpt(text)}`);
  }
  let body: Json | undefined;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // not JSON: the caller reports it
  }
  return { status: res.status, ok: res.ok, text, body };
}

/** A Fault body is a failure whatever the HTTP status (the service sends some with 200). */
function parseResponse({ status, ok, text, body }: Reply, what: string): Json {
  const fault = body && faultOf(body);
  if (fault) throw fault;
  if (!ok || !body) {
    throw new AccountingError("permanent", `accounting system answered ${status} to ${what}: ${excerpt(text)}`);
  }
  return body;
}

/** `{ Fault: { Error: [{ Message, Detail, code }], type } }` (401s use lower-case keys). */
function faultOf(body: Json): AccountingError | undefined {
  const fault = (body.Fault ?? body.fault) as Json | undefined;
  if (!fault) return undefined;
  const errors = ((fault.Error ?? fault.error) as Json[] | undefined) ?? [];
  const first = errors[0] ?? {};
  const code = String(first.code ?? "");
  const text = errors.map((e) => [e.Message ?? e.message, e.Detail ?? e.detail].filter(Boolean).join(": ")).join("; ");
  return new AccountingError("permanent", `${fault.type ?? "Fault"} ${code}: ${text || "no detail"}`.trim(), code);
}

const excerpt = (text: string) => (text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text) || "(empty body)";

/**
 * Runs a write that needs the entity's current SyncToken; on Fault 5010 (stale SyncToken, someone
 * changed it meanwhile) reads the entity, takes its SyncToken and runs the write once more.
 */
export async function withCurrentSyncToken<T>(
  client: QboClient,
  ref: { Id: string; SyncToken: string },
  write: (syncToken: string) => Promise<T>,
): Promise<T> {
  try {
    return await write(ref.SyncToken);
  } catch (e) {
    if (!isFault(e, "5010")) throw e;
    const current = await client.readInvoice(ref.Id);
    return write(current.SyncToken);
  }
}

/** The OAuth 2 refresh grant (token endpoint, client id and secret as HTTP Basic). */
export async function refreshAccessToken(conn: {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  tokenUrl: string;
}): Promise<{ accessToken: string; refreshToken: string; expiresIn: number }> {
  const {
    status,
    ok,
    text,
    body = {},
  } = await exchange(
    conn.tokenUrl,
    {
      method: "POST",
      headers: {
        authorization: basicAuth(conn.clientId, conn.clientSecret),
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: conn.refreshToken }).toString(),
    },
    { who: "token endpoint" },
  );
  if (!ok || typeof body.access_token !== "string" || typeof body.refresh_token !== "string") {
    // invalid_grant (refresh token revoked or expired) / invalid_client: only reconnecting helps.
    const reason = [body.error, body.error_description].filter(Boolean).join(": ") || excerpt(text);
    throw new AccountingError("connection", `token refresh rejected (${status} ${reason}); reconnect with \`accounting connect\``);
  }
  return { accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: Number(body.expires_in ?? 3600) };
}
