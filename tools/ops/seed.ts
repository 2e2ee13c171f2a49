import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Db } from "../../src/platform/db";
import { createCompany, createToken, findCompanyByName, importFile, tokenIsLive } from "./commands";

export const DEMO_COMPANY = "Demo Print Shop";
const seedFile = path.join(import.meta.dirname, "demo-seed.json");

/** The demo company with its demo data, created once (idempotent by name); returns its id. */
export async function ensureDemoCompany(db: Db): Promise<number> {
  const existing = await findCompanyByName(db, DEMO_COMPANY);
  if (existing) return existing;
  const { company_id } = await createCompany(db, { name: DEMO_COMPANY });
  await importFile(db, { companyId: company_id, data: JSON.parse(readFileSync(seedFile, "utf8")) });
  return company_id;
}

/**
 * Seeds the demo company once and returns a working demo token. The token is kept in the local
 * data dir so every `npm run dev` prints the same one.
 */
export async function seedDemo(db: Db, dataDir: string): Promise<{ companyId: number; token: string }> {
  const companyId = await ensureDemoCompany(db);
  const tokenFile = path.join(dataDir, "demo-token");
  const saved = existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").trim() : "";
  if (saved && (await tokenIsLive(db, saved))) return { companyId, token: saved };
  const { token } = await createToken(db, { companyId });
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return { companyId, token };
}
