/**
 * Typed client for the CRM integration API v1: openapi-fetch over the types openapi-typescript
 * generates from the OpenAPI document (schema.d.ts, rewritten by `npm run sdk:generate`).
 * Runs wherever `fetch` does (Node 18+, browsers, Workers). See docs/sdk.md.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths };

/** The named schemas of the document: `Schemas["Client"]`, `Schemas["OrderCreate"]`. */
export type Schemas = components["schemas"];
/** Every operation, by its operationId (`"createOrder"`, `"listClients"`…). */
export type OperationId = keyof operations;
/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON request body of an operation. */
export type BodyOf<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } }
  ? B
  : never;
/** The JSON body of an operation's 200 answer. */
export type ResponseOf<Op extends OperationId> = operations[Op] extends {
  responses: { 200: { content: { "application/json": infer R } } };
}
  ? R
  : never;
/** The body of every error answer. */
export type ApiErrorBody = Schemas["Error"];

export type CrmClient = Client<paths, "application/json">;

export interface CrmClientOptions {
  /** The API root including `/api/v1`, as in the document's `servers`: `https://crm-api.example.com/api/v1`. */
  baseUrl: string;
  /** The company's API token (64 hex characters), sent as `Authorization: Bearer <token>`. */
  token: string;
  /** A fetch to use instead of `globalThis.fetch` (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * An openapi-fetch client for the API, every request carrying the bearer token:
 * `const { data, error, response } = await crm.POST("/clients", { body: { company_name: "Northside" } })`.
 */
export function createCrmClient({ baseUrl, token, fetch }: CrmClientOptions): CrmClient {
  return createClient<paths, "application/json">({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { authorization: `Bearer ${token}` },
    ...(fetch ? { fetch } : {}),
  });
}

/** A non-2xx answer, thrown where a result cannot carry it (the `listAll` iterator). */
export class CrmApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | undefined,
    readonly requestId: string | null,
  ) {
    super(`${status} ${body?.error.code ?? "error"}: ${body?.error.message ?? "no error body"}`);
    this.name = "CrmApiError";
  }
}

/** The list paths that page with `cursor` / `pagination.next_cursor` (`/clients`, `/orders`). */
export type CursorListPath = {
  [P in keyof paths]: paths[P] extends {
    get: {
      parameters: { query?: { cursor?: string } };
      responses: { 200: { content: { "application/json": { data: unknown[]; pagination: { next_cursor: string | null } } } } };
    };
  }
    ? P
    : never;
}[keyof paths];

type ListQuery<P extends CursorListPath> = Omit<NonNullable<paths[P]["get"]["parameters"]["query"]>, "cursor" | "page">;
type ListItem<P extends CursorListPath> = paths[P]["get"]["responses"][200]["content"]["application/json"]["data"][number];

/**
 * Every row of a list, page after page by cursor (each page costs the same at any depth); the filters
 * stay the same on every page. Throws CrmApiError on an error answer (429 included: slow down and resume).
 * `for await (const order of listAll(crm, "/orders", { client_id: 42, per_page: 100 })) …`
 */
export async function* listAll<P extends CursorListPath>(client: CrmClient, path: P, query?: ListQuery<P>): AsyncGenerator<ListItem<P>> {
  // The generic path defeats openapi-fetch's per-path overloads; CursorListPath already proves the shape.
  const get = client.GET as unknown as (
    path: string,
    init: { params: { query: Record<string, unknown> } },
  ) => Promise<{ data?: { data: ListItem<P>[]; pagination: { next_cursor: string | null } }; error?: ApiErrorBody; response: Response }>;
  let cursor: string | undefined;
  do {
    const { data, error, response } = await get(path, { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } });
    if (!data) throw new CrmApiError(response.status, error, response.headers.get("x-request-id"));
    yield* data.data;
    cursor = data.pagination.next_cursor ?? undefined;
  } while (cursor);
}
