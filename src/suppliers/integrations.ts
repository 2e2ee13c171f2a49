import { z } from "@hono/zod-openapi";
import { and, eq, inArray } from "drizzle-orm";
import { supplierIntegrations } from "../db/schema/products";
import { schemaOnce } from "../http/schema-once";
import type { Db } from "../platform/db";

/** Neutral names on the wire; docs/resources/products.md says which supplier protocol each adapter speaks. */
export const PROVIDERS = ["supplier_a", "supplier_b"] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * Production endpoints, used when an integration's base_url is null.
 * supplier_a: SanMar's SOAP product-info service port (the full endpoint URL; test system:
 * https://test-ws.sanmar.com:8080/SanMarWebService/SanMarProductInfoServicePort).
 * supplier_b: S&S Activewear's REST API origin; the adapter appends /v2/... (Canada: https://api-ca.ssactivewear.com).
 */
export const PRODUCTION_BASE_URLS: Record<Provider, string> = {
  supplier_a: "https://ws.sanmar.com:8080/SanMarWebService/SanMarProductInfoServicePort",
  supplier_b: "https://api.ssactivewear.com",
};

/** What each supplier's protocol needs; stored as the integration's credentials jsonb. */
export const credentialSchemas = schemaOnce(() => {
  const secret = z.string().trim().min(1).max(500);
  return {
    supplier_a: z.strictObject({ customer_number: secret, username: secret, password: secret }),
    supplier_b: z.strictObject({ account_number: secret, api_key: secret }),
  } satisfies Record<Provider, z.ZodType>;
});

export type Credentials<P extends Provider> = z.infer<ReturnType<typeof credentialSchemas>[P]>;

export interface SupplierConfig<P extends Provider = Provider> {
  provider: P;
  baseUrl: string;
  credentials: Credentials<P>;
}

export type Unavailable = "integration_missing" | "integration_disabled" | "credentials_incomplete";
export type IntegrationState<P extends Provider = Provider> = { ok: true; config: SupplierConfig<P> } | { ok: false; reason: Unavailable };

/** The company's integration rows for the given providers (a query to await or embed). */
export const integrationRows = (db: Db, companyId: number, providers: Provider[]) =>
  db
    .select()
    .from(supplierIntegrations)
    .where(and(eq(supplierIntegrations.companyId, companyId), inArray(supplierIntegrations.provider, providers)));

/** The company's integrations for the given providers, in one query; credentials stay in memory only. */
export async function loadIntegrations(db: Db, companyId: number, providers: Provider[]) {
  return integrationStates(providers, providers.length ? await integrationRows(db, companyId, providers) : []);
}

/** What each provider's integration row (if any) allows. */
export function integrationStates(providers: Provider[], rows: (typeof supplierIntegrations.$inferSelect)[]) {
  const states = {} as { [P in Provider]: IntegrationState<P> };
  for (const provider of providers) {
    const row = rows.find((r) => r.provider === provider);
    (states as Record<Provider, IntegrationState>)[provider] = integrationState(provider, row);
  }
  return states;
}

function integrationState(provider: Provider, row: typeof supplierIntegrations.$inferSelect | undefined): IntegrationState {
  if (!row) return { ok: false, reason: "integration_missing" };
  if (!row.enabled) return { ok: false, reason: "integration_disabled" };
  const credentials = credentialSchemas()[provider].safeParse(row.credentials);
  if (!credentials.success) return { ok: false, reason: "credentials_incomplete" };
  return { ok: true, config: { provider, baseUrl: row.baseUrl ?? PRODUCTION_BASE_URLS[provider], credentials: credentials.data } };
}

export const UNAVAILABLE_MESSAGES: Record<Unavailable, string> = {
  integration_missing: "No integration with this supplier is set up for the company",
  integration_disabled: "The company's integration with this supplier is disabled",
  credentials_incomplete: "The company's integration with this supplier has incomplete credentials",
};
