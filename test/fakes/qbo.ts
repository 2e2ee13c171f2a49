import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FakeServer, startFake } from "./server";

/**
 * A fake QuickBooks Online Accounting API v3 (JSON) and its OAuth 2 token endpoint, for delivery
 * tests. It speaks the wire format, failures included: `Fault` bodies with codes (5010 stale
 * SyncToken, 610 object not found, 6240 duplicate name, 2020/2500 validation), 401 with the
 * lower-case `fault` body, the refresh grant with Basic client auth and rotating refresh tokens,
 * access tokens bound to one realm, SyncToken checks on update and delete, and `requestid`
 * dedupe (a repeated requestid gets the first response back, nothing applied twice).
 */

type Json = Record<string, any>;

export interface LoggedRequest {
  method: string;
  path: string;
  realm: string | null;
  entity: string | null;
  op: "create" | "update" | "delete" | "read" | "token" | "other";
  query: Record<string, string>;
  body: any;
  /** The realm the bearer token was issued for (null for none / unknown). */
  tokenRealm: string | null;
  authorization: string | undefined;
  status: number;
  /** Answered from the requestid cache. */
  replayed: boolean;
}

interface Realm {
  customers: Map<string, Json>;
  invoices: Map<string, Json>;
  nextId: number;
  responses: Map<string, { status: number; body: Json }>;
}

interface Scripted {
  realm: string;
  match: { entity?: string; op?: LoggedRequest["op"] };
  status: number;
  body: Json | string;
  times: number;
}

const now = () => new Date().toISOString();
export const faultBody = (code: string, message: string, detail = message, type = "ValidationFault") => ({
  Fault: { Error: [{ Message: message, Detail: detail, code, element: "" }], type },
  time: now(),
});
const authFault = () => ({
  warnings: null,
  intuitObject: null,
  fault: {
    error: [{ message: "message=AuthenticationFailed; errorCode=003200; statusCode=401", detail: null, code: "3200", element: null }],
    type: "AUTHENTICATION",
  },
  time: now(),
});

export class FakeQbo {
  readonly requests: LoggedRequest[] = [];
  private readonly realms = new Map<string, Realm>();
  /** client id → secret and the realm its authorization is for */
  private readonly apps = new Map<string, { secret: string; realm: string }>();
  private readonly refreshTokens = new Map<string, { clientId: string }>();
  private readonly accessTokens = new Map<string, { realm: string; revoked: boolean }>();
  private readonly scripted: Scripted[] = [];
  private server?: FakeServer;
  url = "";

  get tokenUrl() {
    return `${this.url}/oauth2/v1/tokens/bearer`;
  }

  /** On the shared fake plumbing: its first-path-segment scenarios (`v3`, `oauth2`) are never special ones. */
  async start() {
    this.server = await startFake(({ req, res, url, body }) => this.handle(req, res, url, body));
    this.url = this.server.origin;
    return this;
  }

  async stop() {
    await this.server?.close();
  }

  /** A realm with an authorized app; returns the credentials `accounting connect` takes. */
  addRealm(realm: string, clientSecret = randomBytes(16).toString("hex")) {
    this.realms.set(realm, { customers: new Map(), invoices: new Map(), nextId: 100, responses: new Map() });
    const clientId = `app-${realm}-${randomBytes(4).toString("hex")}`;
    this.apps.set(clientId, { secret: clientSecret, realm });
    return { realm, clientId, clientSecret, refreshToken: this.issueRefreshToken(clientId) };
  }

  /** The refresh token currently valid for an app (each refresh rotates it). */
  currentRefreshToken(clientId: string) {
    return [...this.refreshTokens].find(([, v]) => v.clientId === clientId)?.[0];
  }

  /** Every access token for the realm stops working (expired early, revoked). */
  revokeAccessTokens(realm: string) {
    for (const t of this.accessTokens.values()) if (t.realm === realm) t.revoked = true;
  }

  /** The next `times` matching requests get this response instead of being processed. */
  script(realm: string, match: Scripted["match"], status: number, body: Json | string, times = 1) {
    this.scripted.push({ realm, match, status, body, times });
  }

  invoices(realm: string) {
    return [...this.realm(realm).invoices.values()];
  }
  customers(realm: string) {
    return [...this.realm(realm).customers.values()];
  }
  /** Someone edits the invoice in the accounting system: its SyncToken moves on. */
  editInvoice(realm: string, id: string, fields: Json = {}) {
    const inv = this.realm(realm).invoices.get(id)!;
    Object.assign(inv, fields, { SyncToken: String(Number(inv.SyncToken) + 1) });
  }
  apiRequests(realm?: string) {
    return this.requests.filter((r) => r.op !== "token" && (realm === undefined || r.realm === realm));
  }
  tokenRequests() {
    return this.requests.filter((r) => r.op === "token");
  }

  private realm(id: string) {
    const realm = this.realms.get(id);
    if (!realm) throw new Error(`unknown realm ${id}`);
    return realm;
  }

  private issueRefreshToken(clientId: string) {
    for (const [token, v] of this.refreshTokens) if (v.clientId === clientId) this.refreshTokens.delete(token);
    const token = `rt-${randomBytes(12).toString("hex")}`;
    this.refreshTokens.set(token, { clientId });
    return token;
  }

  private handle(req: IncomingMessage, res: ServerResponse, url: URL, raw: string) {
    const query = Object.fromEntries(url.searchParams);
    const log: LoggedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      realm: null,
      entity: null,
      op: "other",
      query,
      body: undefined,
      tokenRealm: null,
      authorization: req.headers.authorization,
      status: 0,
      replayed: false,
    };
    this.requests.push(log);
    const send = (status: number, body: Json | string, headers: Record<string, string> = {}) => {
      log.status = status;
      res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };

    if (url.pathname === "/oauth2/v1/tokens/bearer" && req.method === "POST") {
      log.op = "token";
      log.body = Object.fromEntries(new URLSearchParams(raw));
      return send(...this.token(req.headers.authorization, req.headers["content-type"], log.body));
    }

    const m = /^\/v3\/company\/([^/]+)\/(invoice|customer)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m || !this.realms.has(decodeURIComponent(m[1]))) return send(404, faultBody("610", "Object Not Found", "Unknown path"));
    const [, realmId, entity, id] = m;
    log.realm = decodeURIComponent(realmId);
    log.entity = entity;
    try {
      log.body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return send(400, faultBody("2020", "Request has invalid or unsupported property"));
    }
    log.op = req.method === "GET" ? "read" : query.operation === "delete" ? "delete" : log.body?.Id ? "update" : "create";

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const access = bearer ? this.accessTokens.get(bearer) : undefined;
    log.tokenRealm = access?.realm ?? null;
    // A token authorizes one realm only.
    if (!access || access.revoked || access.realm !== log.realm)
      return send(401, authFault(), { "www-authenticate": 'Bearer realm="Intuit"' });

    // Throttling and outages happen before processing: nothing is applied or remembered.
    const scripted = this.scripted.find(
      (s) =>
        s.times > 0 && s.realm === log.realm && (!s.match.entity || s.match.entity === entity) && (!s.match.op || s.match.op === log.op),
    );
    if (scripted) {
      scripted.times--;
      return send(scripted.status, scripted.body);
    }

    const realm = this.realm(log.realm);
    const requestId = query.requestid;
    const cached = requestId && realm.responses.get(requestId);
    if (cached) {
      log.replayed = true;
      return send(cached.status, cached.body);
    }
    const [status, body] = entity === "customer" ? this.customer(realm, log) : this.invoice(realm, log, id);
    if (requestId && log.op !== "read") realm.responses.set(requestId, { status, body });
    return send(status, body);
  }

  private token(authorization: string | undefined, contentType: string | undefined, form: Record<string, string>): [number, Json] {
    const basic = /^Basic (.+)$/.exec(authorization ?? "")?.[1];
    const [clientId, secret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
    const app = clientId ? this.apps.get(clientId) : undefined;
    if (!app || app.secret !== secret) return [401, { error: "invalid_client" }];
    if (!contentType?.startsWith("application/x-www-form-urlencoded") || form.grant_type !== "refresh_token") {
      return [400, { error: "unsupported_grant_type" }];
    }
    const holder = this.refreshTokens.get(form.refresh_token ?? "");
    if (!holder || holder.clientId !== clientId)
      return [400, { error: "invalid_grant", error_description: "Incorrect or invalid refresh token" }];
    const accessToken = `at-${randomBytes(12).toString("hex")}`;
    this.accessTokens.set(accessToken, { realm: app.realm, revoked: false });
    return [
      200,
      {
        token_type: "bearer",
        access_token: accessToken,
        expires_in: 3600,
        refresh_token: this.issueRefreshToken(clientId),
        x_refresh_token_expires_in: 8726400,
      },
    ];
  }

  private customer(realm: Realm, log: LoggedRequest): [number, Json] {
    if (log.op !== "create") return [400, faultBody("2020", "Operation not supported by this fake")];
    const body = log.body ?? {};
    if (!body.DisplayName)
      return [
        400,
        faultBody(
          "2020",
          "Required param missing, need to supply the required value for the API",
          "Required parameter DisplayName is missing in the request",
        ),
      ];
    if ([...realm.customers.values()].some((c) => c.DisplayName === body.DisplayName)) {
      return [
        400,
        faultBody(
          "6240",
          "Duplicate Name Exists Error",
          `The name supplied already exists. : Another customer, vendor or employee is already using this name. Please use a different name.`,
        ),
      ];
    }
    const customer = { ...body, Id: String(realm.nextId++), SyncToken: "0", Active: true, domain: "QBO", sparse: false };
    realm.customers.set(customer.Id, customer);
    return [200, { Customer: customer, time: now() }];
  }

  private invoice(realm: Realm, log: LoggedRequest, id: string | undefined): [number, Json] {
    const body = log.body ?? {};
    if (log.op === "read") {
      const inv = id && realm.invoices.get(id);
      return inv
        ? [200, { Invoice: inv, time: now() }]
        : [
            400,
            faultBody(
              "610",
              "Object Not Found",
              `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.`,
            ),
          ];
    }
    if (log.op === "create") {
      if (!body.CustomerRef?.value || !realm.customers.has(body.CustomerRef.value)) {
        return [
          400,
          faultBody(
            "2500",
            "Invalid Reference Id",
            `Invalid Reference Id : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.`,
          ),
        ];
      }
      if (!Array.isArray(body.Line) || !body.Line.length) {
        return [
          400,
          faultBody(
            "2020",
            "Required param missing, need to supply the required value for the API",
            "Required parameter Line is missing in the request",
          ),
        ];
      }
      const invoice = {
        ...body,
        Id: String(realm.nextId++),
        SyncToken: "0",
        DocNumber: String(1000 + realm.invoices.size),
        domain: "QBO",
        sparse: false,
      };
      realm.invoices.set(invoice.Id, invoice);
      return [200, { Invoice: invoice, time: now() }];
    }
    const existing = realm.invoices.get(String(body.Id));
    if (!existing)
      return [
        400,
        faultBody(
          "610",
          "Object Not Found",
          `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.`,
        ),
      ];
    if (String(body.SyncToken) !== existing.SyncToken) {
      return [
        400,
        faultBody(
          "5010",
          "Stale Object Error",
          `Stale Object Error : You and root were working on this at the same time. root finished before you did, so your work was not saved.`,
        ),
      ];
    }
    if (log.op === "delete") {
      realm.invoices.delete(existing.Id);
      return [200, { Invoice: { domain: "QBO", status: "Deleted", Id: existing.Id }, time: now() }];
    }
    if (body.CustomerRef && !realm.customers.has(body.CustomerRef.value)) return [400, faultBody("2500", "Invalid Reference Id")];
    // Sparse: only the fields sent change; a full update replaces the writable fields.
    const { sparse, Id: _id, SyncToken: _token, ...fields } = body;
    const updated =
      sparse === true ? { ...existing, ...fields } : { Id: existing.Id, DocNumber: existing.DocNumber, domain: "QBO", ...fields };
    updated.SyncToken = String(Number(existing.SyncToken) + 1);
    updated.sparse = false;
    realm.invoices.set(existing.Id, updated);
    return [200, { Invoice: updated, time: now() }];
  }
}

export const startFakeQbo = () => new FakeQbo().start();
