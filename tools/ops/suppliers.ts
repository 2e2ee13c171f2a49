import { and, eq, sql } from "drizzle-orm";
import { supplierIntegrations } from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { credentialSchemas, PRODUCTION_BASE_URLS, PROVIDERS, type Provider } from "../../src/suppliers/integrations";
import { httpUrlOption, requireCompany } from "./commands";
import { CommandError } from "./errors";

export interface SetIntegrationInput {
  companyId: number;
  provider: string;
  enabled: boolean;
  /** undefined: keep; null: back to the production endpoint; string: http(s) URL. */
  baseUrl?: string | null;
  /** undefined: keep the stored credentials; otherwise replaces them whole. */
  credentials?: unknown;
}

/** Names the offending fields only: the operator's values (secrets) are never echoed. */
function checkCredentials(provider: Provider, value: unknown) {
  const parsed = credentialSchemas()[provider].safeParse(value);
  if (parsed.success) return parsed.data;
  const expected = Object.keys(credentialSchemas()[provider].shape).join(", ");
  const fields = [
    ...new Set(parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : [i.path.join(".") || "(credentials)"]))),
  ];
  throw new CommandError(
    `--credentials for ${provider} must be a JSON object with non-empty strings ${expected}; problem with: ${fields.join(", ")}`,
  );
}

/**
 * Creates or updates a company's supplier integration. Enabling requires complete credentials
 * (given now or already stored). Returns the integration without credentials.
 */
export async function setIntegration(db: Db, input: SetIntegrationInput) {
  if (!(PROVIDERS as readonly string[]).includes(input.provider))
    throw new CommandError(`--provider must be one of ${PROVIDERS.join(", ")}`);
  const provider = input.provider as Provider;
  const baseUrl = typeof input.baseUrl === "string" ? httpUrlOption("base-url", input.baseUrl, "use --credentials") : input.baseUrl;
  const credentials = input.credentials === undefined ? undefined : checkCredentials(provider, input.credentials);

  const row = await db.transaction(async (tx) => {
    await requireCompany(tx, input.companyId);
    const [existing] = await tx
      .select()
      .from(supplierIntegrations)
      .where(and(eq(supplierIntegrations.companyId, input.companyId), eq(supplierIntegrations.provider, provider)))
      .for("update");
    if (input.enabled && credentials === undefined && !credentialSchemas()[provider].safeParse(existing?.credentials).success) {
      throw new CommandError(`enabling ${provider} needs complete credentials: pass --credentials`);
    }
    const changes = {
      enabled: input.enabled,
      ...(credentials !== undefined ? { credentials } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
    };
    const [saved] = await tx
      .insert(supplierIntegrations)
      .values({ companyId: input.companyId, provider, ...changes })
      .onConflictDoUpdate({
        target: [supplierIntegrations.companyId, supplierIntegrations.provider],
        set: { ...changes, updatedAt: sql`now()` },
      })
      .returning();
    return saved;
  });

  return {
    integration: {
      company_id: row.companyId,
      provider: row.provider,
      enabled: row.enabled,
      base_url: row.baseUrl,
      effective_base_url: row.baseUrl ?? PRODUCTION_BASE_URLS[provider],
      credential_fields: Object.keys(row.credentials).sort(),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    },
  };
}
