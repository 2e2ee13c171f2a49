import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newCompany, sql, type TestCompany } from "./support/api";
import { companyRows } from "./support/operations";

/**
 * The database's own refusals of a caller's input: what the checks before it let through is a 400
 * naming the field, on the HTTP path and in a WebSocket transaction (an idempotent POST) alike, and
 * nothing is written. The refusals are arranged for one test company only (a partial unique index, a
 * trigger raising a data error), so the files running beside this one are not affected.
 */
let co: TestCompany;
const suffix = randomUUID().slice(0, 8);
const index = `test_unique_email_${suffix}`;
const fn = `test_refuse_phone_${suffix}`;

beforeAll(async () => {
  co = await newCompany();
  await sql(`create unique index ${index} on clients (email) where company_id = ${co.companyId}`);
  await sql(`create function ${fn}() returns trigger language plpgsql as $$
    begin
      if new.phone = 'refused by the database' then
        raise exception 'value too long' using errcode = '22001', column = 'phone';
      end if;
      return new;
    end $$`);
  await sql(
    `create trigger ${fn} before insert or update on clients for each row when (new.company_id = ${co.companyId}) execute function ${fn}()`,
  );
});

afterAll(async () => {
  await sql(`drop trigger if exists ${fn} on clients`);
  await sql(`drop function if exists ${fn}()`);
  await sql(`drop index if exists ${index}`);
});

describe("constraint and data errors from the database", () => {
  it("are a 400 naming the field, over SQL over HTTP and in a WebSocket transaction, writing nothing", async () => {
    expect((await co.post("/clients", { company_name: "First", email: "dup@example.com" })).status).toBe(200);
    const before = await companyRows(co.companyId);
    const cases = [
      { body: { company_name: "Second", email: "dup@example.com" }, field: "email", message: "Already exists" },
      { body: { company_name: "Third", phone: "refused by the database" }, field: "phone", message: "Too long" },
    ];
    for (const { body, field, message } of cases) {
      for (const headers of [{}, { "idempotency-key": randomUUID() }] as Record<string, string>[]) {
        const res = await call("POST", "/clients", { token: co.token, body, headers });
        const err = expectError(res, 400, "invalid_request");
        expect(err.details, JSON.stringify(headers)).toEqual([{ field, message }]);
      }
    }
    expect(await companyRows(co.companyId)).toEqual(before);
  });
});
