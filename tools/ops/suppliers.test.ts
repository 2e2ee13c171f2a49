import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { PRODUCTION_BASE_URLS } from "../../src/suppliers/integrations";
import { db, newCompany, sql } from "../../test/support/api";
import { sanMarCredentials, ssCredentials } from "../../test/support/products";
import { main } from "../cli/admin";
import { setIntegration } from "./suppliers";

/** Runs the admin CLI in-process; returns exit code, stdout and stderr. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a) => void out.push(a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a) => void err.push(a.join(" ")));
  try {
    const code = await main(argv);
    return { code, stdout: out.join("\n"), stderr: err.join("\n"), json: out.length ? JSON.parse(out.at(-1)!) : undefined };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

beforeAll(() => {
  process.env.DATABASE_URL = inject("databaseUrl");
});
afterEach(() => vi.restoreAllMocks());

describe("admin CLI: integration set", () => {
  it("creates an integration and prints it without credentials", async () => {
    const { companyId } = await newCompany();
    const creds = sanMarCredentials();
    const res = await cli(
      "integration",
      "set",
      "--company",
      String(companyId),
      "--provider",
      "supplier_a",
      "--enabled",
      "true",
      "--credentials",
      JSON.stringify(creds),
    );
    expect(res.code).toBe(0);
    expect(res.json).toEqual({
      integration: {
        company_id: companyId,
        provider: "supplier_a",
        enabled: true,
        base_url: null,
        effective_base_url: PRODUCTION_BASE_URLS.supplier_a,
        credential_fields: ["customer_number", "password", "username"],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    for (const secret of Object.values(creds)) expect(res.stdout).not.toContain(secret);
    const [row] = await sql<{ credentials: unknown; enabled: boolean }>(
      "select credentials, enabled from supplier_integrations where company_id = $1",
      [companyId],
    );
    expect(row).toEqual({ credentials: creds, enabled: true });
  });

  it("updates in place: keeps credentials when none are given, sets and resets the base URL", async () => {
    const { companyId } = await newCompany();
    const creds = ssCredentials();
    await setIntegration(db(), { companyId, provider: "supplier_b", enabled: true, credentials: creds });
    const disabled = await cli(
      "integration",
      "set",
      "--company",
      String(companyId),
      "--provider",
      "supplier_b",
      "--enabled",
      "false",
      "--base-url",
      "https://api-ca.ssactivewear.com/",
    );
    expect(disabled.code).toBe(0);
    expect(disabled.json.integration).toMatchObject({
      enabled: false,
      base_url: "https://api-ca.ssactivewear.com",
      credential_fields: ["account_number", "api_key"],
    });
    const reset = await cli(
      "integration",
      "set",
      "--company",
      String(companyId),
      "--provider",
      "supplier_b",
      "--enabled",
      "true",
      "--base-url",
      "default",
    );
    expect(reset.json.integration).toMatchObject({ enabled: true, base_url: null, effective_base_url: "https://api.ssactivewear.com" });
    expect(await sql("select credentials from supplier_integrations where company_id = $1", [companyId])).toEqual([{ credentials: creds }]);
  });

  it("refuses bad input with exit 1, never echoing the credentials", async () => {
    const { companyId } = await newCompany();
    const co = String(companyId);
    const secret = `s3cret-${companyId}`;
    const cases: [string[], RegExp][] = [
      [["--provider", "supplier_c", "--enabled", "true"], /--provider/],
      [["--provider", "supplier_a", "--enabled", "yes"], /--enabled/],
      [["--provider", "supplier_a", "--enabled", "true"], /needs complete credentials/],
      [["--provider", "supplier_a", "--enabled", "false", "--credentials", `{"password": "${secret}"`], /valid JSON/],
      [
        ["--provider", "supplier_a", "--enabled", "false", "--credentials", JSON.stringify({ password: secret, pin: secret })],
        /customer_number.*pin/,
      ],
      [
        ["--provider", "supplier_b", "--enabled", "false", "--credentials", JSON.stringify({ account_number: secret, api_key: "" })],
        /api_key/,
      ],
      [["--provider", "supplier_b", "--enabled", "false", "--base-url", "ftp://x.example"], /--base-url/],
      [["--provider", "supplier_b", "--enabled", "false", "--base-url", `https://user:${secret}@x.example`], /must not carry credentials/],
    ];
    for (const [args, message] of cases) {
      const res = await cli("integration", "set", "--company", co, ...args);
      expect(res.code, args.join(" ")).toBe(1);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toContain(secret);
    }
    expect((await cli("integration", "set", "--company", "999999999", "--provider", "supplier_a", "--enabled", "false")).stderr).toMatch(
      /does not exist/,
    );
    expect(await sql("select 1 from supplier_integrations where company_id = $1", [companyId])).toEqual([]);
  });
});
