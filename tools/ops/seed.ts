import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Db } from "../../src/platform/db";
import { rowsOf } from "../../src/platform/sql-kit";
import { hashPassword, verifyPassword } from "../../src/settings/passwords";
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

export const DEMO_OWNER = "owner@demo.example";

/**
 * The demo company's owner for the settings area, with a password kept in the local data dir
 * (`demo-owner-password`), so every `npm run dev` prints the same one. A password changed in the
 * settings area is left alone (and not printed); a missing user, or one without a password, gets the kept one.
 */
export async function ensureDemoOwner(db: Db, companyId: number, dataDir: string): Promise<{ email: string; password?: string }> {
  const passwordFile = path.join(dataDir, "demo-owner-password");
  let password = existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : "";
  if (password.length < 12) {
    password = `demo-${randomBytes(12).toString("base64url")}`;
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  }
  const [user] = rowsOf<{ id: number; company_id: number; password_hash: string | null }>(
    await db.execute(sql`select id, company_id, password_hash from company_users where lower(email) = ${DEMO_OWNER}`),
  );
  if (user?.password_hash)
    return (await verifyPassword(password, user.password_hash)) ? { email: DEMO_OWNER, password } : { email: DEMO_OWNER };
  const hash = await hashPassword(password);
  if (user) await db.execute(sql`update company_users set password_hash = ${hash}, password_changed_at = now() where id = ${user.id}`);
  else
    await db.execute(sql`insert into company_users (company_id, email, role, password_hash, password_changed_at)
      values (${companyId}, ${DEMO_OWNER}, 'owner', ${hash}, now())`);
  return { email: DEMO_OWNER, password };
}
