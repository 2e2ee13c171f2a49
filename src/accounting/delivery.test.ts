import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type FakeQbo, faultBody, startFakeQbo } from "../../test/fakes/qbo";
import { DEAD_LETTER_WITHIN_MS, db, newCompany, sql, type TestCompany, waitFor, workerLogLines } from "../../test/support/api";
import { type RunningWorker, startWorker } from "../../test/support/worker";
import { accountingStatus, connectAccounting } from "../../tools/ops/accounting";
import type { Bindings, OutboxMessage } from "../platform/env";
import { notifyOutbox, recordAccountingChange } from "./outbox";
import type { AccountingChange, AccountingUpdate } from "./payload";

/**
 * Delivery through the real queue consumer in workerd (Miniflare runs the queue, its dead-letter
 * queue and the cron trigger from wrangler.toml) against a fake QuickBooks Online v3 service.
 * Two Worker instances of the real bundle: `fast` retries at once (backoff base 0 s, 3 attempts),
 * `slow` keeps the production-like 600 s base so a backing-off row can be looked at.
 */

interface TestWorker {
  worker: RunningWorker;
  queue: Queue<OutboxMessage>;
  logFile: string;
}

let fake: FakeQbo;
let fast: TestWorker;
let slow: TestWorker;

async function start(name: string, vars: Record<string, string>): Promise<TestWorker> {
  const logFile = path.join(inject("tmpDir"), `accounting-${name}.log`);
  const worker = await startWorker({ script: inject("workerScript"), bindings: { ...inject("workerBindings"), ...vars }, logFile });
  return { worker, queue: await worker.mf.getQueueProducer<OutboxMessage>("ACCOUNTING_QUEUE"), logFile };
}

beforeAll(async () => {
  fake = await startFakeQbo();
  [fast, slow] = await Promise.all([
    start("fast", { ACCOUNTING_RETRY_BASE_SECONDS: "0", ACCOUNTING_MAX_ATTEMPTS: "3" }),
    start("slow", { ACCOUNTING_RETRY_BASE_SECONDS: "600" }),
  ]);
});

afterAll(async () => {
  await Promise.all([fast?.worker.dispose(), slow?.worker.dispose()]);
  await fake?.stop();
});

let realmSeq = 0;
/** A sync-enabled company connected to its own fresh realm of the fake. */
async function connectedCompany(clientSecret?: string) {
  const company = await newCompany({ accountingSync: true });
  const creds = fake.addRealm(`realm-${process.pid}-${++realmSeq}`, clientSecret);
  await connectAccounting(db(), {
    companyId: company.companyId,
    realmId: creds.realm,
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    refreshToken: creds.refreshToken,
    baseUrl: fake.url,
    tokenUrl: fake.tokenUrl,
  });
  return { company, creds, realm: creds.realm };
}

interface Order {
  companyId: number;
  clientId: number;
  projectId: number;
  invoiceId: number;
}

/** A client through the API, then project, default invoice, items (and tax) as rows. */
async function arrangeOrder(
  company: TestCompany,
  opts: {
    clientName?: string;
    description?: string | null;
    dueDate?: string | null;
    clientNotes?: string | null;
    taxRate?: string;
    discount?: [string, "percentage" | "fixed_amount", "before_tax" | "after_tax"];
    items?: [string, string, string][];
  } = {},
): Promise<Order> {
  const res = await company.post("/clients", {
    company_name: opts.clientName ?? `Client ${Date.now()}-${Math.random()}`,
    first_name: "Maya",
    email: "maya@example.com",
  });
  expect(res.status).toBe(200);
  const clientId: number = res.body.client.id;
  const taxId = opts.taxRate
    ? (
        await sql<{ id: number }>("insert into taxes (company_id, name, rate) values ($1, 'Sales tax', $2) returning id", [
          company.companyId,
          opts.taxRate,
        ])
      )[0].id
    : null;
  const [project] = await sql<{ id: number }>(
    "insert into projects (company_id, client_id, title, description) values ($1, $2, 'Team tees', $3) returning id",
    [company.companyId, clientId, opts.description ?? null],
  );
  const [amount, amountType, discountType] = opts.discount ?? ["0", "percentage", "before_tax"];
  const [invoice] = await sql<{ id: number }>(
    `insert into invoices (company_id, project_id, client_id, due_date, client_notes, tax_id, discount_amount, discount_amount_type, discount_type)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
    [company.companyId, project.id, clientId, opts.dueDate ?? null, opts.clientNotes ?? null, taxId, amount, amountType, discountType],
  );
  for (const [i, [title, quantity, unitPrice]] of (opts.items ?? [["Tee", "1", "10.00"]]).entries()) {
    await sql("insert into invoice_items (company_id, invoice_id, title, quantity, unit_price, position) values ($1, $2, $3, $4, $5, $6)", [
      company.companyId,
      invoice.id,
      title,
      quantity,
      unitPrice,
      i,
    ]);
  }
  return { companyId: company.companyId, clientId, projectId: project.id, invoiceId: invoice.id };
}

const record = (order: Order, change: AccountingChange) =>
  db().transaction((tx) =>
    recordAccountingChange(tx as never, { companyId: order.companyId, projectId: order.projectId, invoiceId: order.invoiceId, ...change }),
  );
const create: AccountingChange = { operation: "create", payload: {} };
const del: AccountingChange = { operation: "delete", payload: {} };
const update = (changes: AccountingUpdate): AccountingChange => ({ operation: "update", payload: { changes } });

/** The real producer path: what the orders routes call after their transaction commits. */
async function send(target: TestWorker, ids: number[], databaseUrl = inject("databaseUrl")) {
  const deferred: Promise<unknown>[] = [];
  notifyOutbox({ ACCOUNTING_QUEUE: target.queue, DATABASE_URL: databaseUrl } as unknown as Bindings, ids, (p) => deferred.push(p));
  await Promise.all(deferred);
}

interface OutboxRow {
  id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  enqueued_at: Date | null;
  processed_at: Date | null;
}
const rows = (ids: number[]) => sql<OutboxRow>("select * from accounting_outbox where id = any($1::bigint[]) order by id", [ids]);

/** Waits until every row of `ids` has one of `statuses`; within `withinMs`, or waitFor's default. */
const waitStatusWithin = (withinMs: number | undefined, ids: number[], ...statuses: string[]) =>
  waitFor(
    `rows ${ids} to be ${statuses}`,
    () => rows(ids),
    (rs) => rs.length === ids.length && rs.every((r) => statuses.includes(r.status)),
    withinMs,
  );
const waitStatus = (ids: number[], ...statuses: string[]) => waitStatusWithin(undefined, ids, ...statuses);
/** Calls of the fake's token endpoint with this connection's client credentials. */
const tokenCalls = (creds: { clientId: string; clientSecret: string }) =>
  fake.tokenRequests().filter((r) => r.authorization?.endsWith(btoa(`${creds.clientId}:${creds.clientSecret}`))).length;
const waitLog = (target: TestWorker, match: (line: any) => boolean) =>
  waitFor("a worker log line", () =>
    workerLogLines(target.logFile)
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .find(match),
  );

const link = async (companyId: number, entity: string, localId: number) =>
  (
    await sql<{ remote_id: string; sync_token: string }>(
      "select * from accounting_links where company_id = $1 and entity = $2 and local_id = $3",
      [companyId, entity, localId],
    )
  )[0];
const requestIdsOf = (realm: string) => fake.apiRequests(realm).map((r) => `${r.op} ${r.entity} ${r.query.requestid ?? "-"} ${r.status}`);

describe("accounting delivery: one queue, several databases", () => {
  it("ignores a message sent from another database (a pull-request preview version), leaving this database's row alone", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const id = await record(order, create);
    await send(fast, [id], "postgres://user:secret@ep-preview-pr-7.example.neon.tech/crm");
    await waitLog(fast, (l) => l.msg === "accounting message for another database ignored");
    const [row] = await rows([id]);
    expect(row).toMatchObject({ status: "pending", attempts: 0 });
    expect(fake.apiRequests(realm)).toEqual([]);
    // The same id sent from its own database is delivered.
    await send(fast, [id]);
    await waitStatus([id], "done");
  });
});

describe("accounting delivery: bodies", () => {
  it("sends a client secret beyond Latin-1 as UTF-8 Basic credentials to the token endpoint", async () => {
    const secret = "sécret-密钥-🔑";
    const { company, creds } = await connectedCompany(secret);
    const id = await record(await arrangeOrder(company), create);
    await send(fast, [id]);
    const [row] = await waitStatus([id], "done");
    expect(row).toMatchObject({ attempts: 1, last_error: null });
    const basic = `Basic ${Buffer.from(`${creds.clientId}:${secret}`, "utf8").toString("base64")}`;
    expect(fake.tokenRequests().filter((r) => r.authorization === basic)).toHaveLength(1);
  });

  it("creates the customer and the invoice, then applies a sparse update and a delete, with the v3 bodies", async () => {
    const { company, creds, realm } = await connectedCompany();
    const order = await arrangeOrder(company, {
      clientName: "Northside Print Co.",
      description: "Front and back print",
      dueDate: "2026-07-15",
      clientNotes: "Thank you!",
      taxRate: "8.875",
      discount: ["10.00", "percentage", "before_tax"],
      items: [
        ["Gildan 5000 tee", "3", "12.50"],
        ["Hoodie embroidery", "2.5", "9.99"],
      ],
    });
    const createId = await record(order, create);
    await send(fast, [createId]);
    const [created] = await waitStatus([createId], "done");
    expect(created).toMatchObject({ attempts: 1, last_error: null });

    // OAuth: the refresh grant with Basic client auth; the rotated refresh token is saved.
    const [tokenReq] = fake.tokenRequests().filter((r) => r.authorization === `Basic ${btoa(`${creds.clientId}:${creds.clientSecret}`)}`);
    expect(tokenReq.body).toEqual({ grant_type: "refresh_token", refresh_token: creds.refreshToken });
    const [conn] = await sql<{ refresh_token: string; access_token: string }>(
      "select * from accounting_connections where company_id = $1",
      [company.companyId],
    );
    expect(conn.refresh_token).toBe(fake.currentRefreshToken(creds.clientId));
    expect(conn.access_token).toBeTruthy();

    const [customer] = fake.customers(realm);
    expect(customer).toMatchObject({
      DisplayName: "Northside Print Co.",
      CompanyName: "Northside Print Co.",
      GivenName: "Maya",
      PrimaryEmailAddr: { Address: "maya@example.com" },
      Taxable: true,
    });
    const [invoice] = fake.invoices(realm);
    const itemLines = [
      {
        DetailType: "SalesItemLineDetail",
        Amount: 37.5,
        Description: "Gildan 5000 tee",
        SalesItemLineDetail: { Qty: 3, UnitPrice: 12.5, TaxCodeRef: { value: "TAX" } },
      },
      {
        DetailType: "SalesItemLineDetail",
        Amount: 24.98,
        Description: "Hoodie embroidery",
        SalesItemLineDetail: { Qty: 2.5, UnitPrice: 9.99, TaxCodeRef: { value: "TAX" } },
      },
    ];
    // subtotal 62.48; 10 % discount 6.25; tax 8.875 % of 56.23 = 4.99
    expect(invoice).toMatchObject({
      CustomerRef: { value: customer.Id },
      DueDate: "2026-07-15",
      PrivateNote: "Front and back print",
      CustomerMemo: { value: "Thank you!" },
      ApplyTaxAfterDiscount: true,
      TxnTaxDetail: { TotalTax: 4.99 },
      Line: [
        ...itemLines,
        { DetailType: "DiscountLineDetail", Amount: 6.25, DiscountLineDetail: { PercentBased: true, DiscountPercent: 10 } },
      ],
      SyncToken: "0",
    });
    expect(await link(company.companyId, "invoice", order.invoiceId)).toMatchObject({ remote_id: invoice.Id, sync_token: "0" });
    expect(await link(company.companyId, "customer", order.clientId)).toMatchObject({ remote_id: customer.Id });
    expect(fake.apiRequests(realm).every((r) => r.query.minorversion === "75")).toBe(true);
    expect(requestIdsOf(realm)).toEqual([`create customer crm-client-${order.clientId} 200`, `create invoice crm-${createId}-create 200`]);

    // Sparse update: every mapped field, a new customer, a percentage discount after tax (sent as its amount).
    const other = (await company.post("/clients", { company_name: "Eastside Sports" })).body.client.id as number;
    const updateId = await record(
      order,
      update({
        private_note: "Rush order",
        due_date: "2026-08-01",
        client_id: other,
        customer_memo: "See you soon",
        discount: { amount: "10", amount_type: "percentage", discount_type: "after_tax" },
      }),
    );
    await send(fast, [updateId]);
    await waitStatus([updateId], "done");
    const eastside = fake.customers(realm).find((c) => c.DisplayName === "Eastside Sports")!;
    const updateReq = fake.apiRequests(realm).find((r) => r.query.requestid === `crm-${updateId}-update-0`)!;
    expect(updateReq.body).toEqual({
      Id: invoice.Id,
      SyncToken: "0",
      sparse: true,
      PrivateNote: "Rush order",
      DueDate: "2026-08-01",
      CustomerRef: { value: eastside.Id },
      CustomerMemo: { value: "See you soon" },
      // tax 8.875 % of the undiscounted 62.48 = 5.55; discount 10 % of (62.48 + 5.55) = 6.80, not percent-based
      // (QuickBooks would take a percentage of the pre-tax subtotal: 6.25)
      Line: [...itemLines, { DetailType: "DiscountLineDetail", Amount: 6.8, DiscountLineDetail: { PercentBased: false } }],
      ApplyTaxAfterDiscount: false,
      TxnTaxDetail: { TotalTax: 5.55 },
    });
    expect(fake.invoices(realm)[0]).toMatchObject({ SyncToken: "1", PrivateNote: "Rush order", CustomerRef: { value: eastside.Id } });
    expect(await link(company.companyId, "invoice", order.invoiceId)).toMatchObject({ sync_token: "1" });

    // A tax change (exempt) resends the lines as non-taxable with no tax.
    const taxId = await record(order, update({ tax: { tax_id: null, rate: null, tax_exempt: true } }));
    await send(fast, [taxId]);
    await waitStatus([taxId], "done");
    expect(fake.invoices(realm)[0]).toMatchObject({ SyncToken: "2", TxnTaxDetail: { TotalTax: 0 } });
    expect(fake.invoices(realm)[0].Line[0].SalesItemLineDetail.TaxCodeRef).toEqual({ value: "NON" });

    const deleteId = await record(order, del);
    await send(fast, [deleteId]);
    await waitStatus([deleteId], "done");
    const deleteReq = fake.apiRequests(realm).at(-1)!;
    expect(deleteReq).toMatchObject({
      op: "delete",
      query: { operation: "delete", requestid: `crm-${deleteId}-delete-2`, minorversion: "75" },
      body: { Id: invoice.Id, SyncToken: "2" },
    });
    expect(fake.invoices(realm)).toEqual([]);
    expect(await link(company.companyId, "invoice", order.invoiceId)).toBeUndefined();
  });

  it("sends an invoice without items as one description line, and a customer whose name is taken under a unique name", async () => {
    const { company, realm } = await connectedCompany();
    const first = await arrangeOrder(company, { clientName: "Acme", items: [] });
    const second = await arrangeOrder(company, { clientName: "Acme" });
    const a = await record(first, create);
    await send(fast, [a]);
    await waitStatus([a], "done");
    const b = await record(second, create);
    await send(fast, [b]);
    await waitStatus([b], "done");
    expect(fake.invoices(realm)[0].Line).toEqual([{ DetailType: "DescriptionOnly", Description: "Team tees", DescriptionLineDetail: {} }]);
    expect(fake.customers(realm).map((c) => c.DisplayName)).toEqual(["Acme", `Acme (${second.clientId})`]);
    expect(requestIdsOf(realm)).toContain(`create customer crm-client-${second.clientId} 400`);
  });
});

describe("accounting delivery: idempotency and ordering", () => {
  it("does not apply a redelivered operation twice", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const id = await record(order, create);
    await send(fast, [id]);
    await waitStatus([id], "done");
    const before = fake.apiRequests(realm).length;

    // The same message again: the row is done, nothing is sent.
    await send(fast, [id]);
    const again = await record(order, update({ customer_memo: "x" })); // a later row marks when the queue got past it
    await send(fast, [again]);
    await waitStatus([again], "done");
    expect(fake.apiRequests(realm).filter((r) => r.query.requestid === `crm-${id}-create`)).toHaveLength(1);
    expect(fake.apiRequests(realm).length).toBe(before + 1);

    // The remote applied it but our commit was lost: the same requestid gets the first answer back.
    const remoteId = (await link(company.companyId, "invoice", order.invoiceId)).remote_id;
    await sql("update accounting_outbox set status = 'pending', processed_at = null where id = $1", [id]);
    await sql("delete from accounting_links where company_id = $1 and entity = 'invoice'", [company.companyId]);
    await send(fast, [id]);
    await waitStatus([id], "done");
    const repeats = fake.apiRequests(realm).filter((r) => r.query.requestid === `crm-${id}-create`);
    expect(repeats.map((r) => r.replayed)).toEqual([false, true]);
    expect(fake.invoices(realm)).toHaveLength(1);
    expect((await link(company.companyId, "invoice", order.invoiceId)).remote_id).toBe(remoteId);
  });

  it("never lets an update overtake its create, even when the update's message comes first and the create is retried", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const createId = await record(order, create);
    const updateId = await record(order, update({ private_note: "after create" }));
    fake.script(realm, { entity: "invoice", op: "create" }, 503, "Service Unavailable");
    await send(fast, [updateId]);
    await send(fast, [createId]);
    await waitStatus([createId, updateId], "done");
    expect(requestIdsOf(realm)).toEqual([
      `create customer crm-client-${order.clientId} 200`,
      `create invoice crm-${createId}-create 503`,
      `create invoice crm-${createId}-create 200`,
      `update invoice crm-${updateId}-update-0 200`,
    ]);
    expect(fake.invoices(realm)).toHaveLength(1);
    expect(fake.invoices(realm)[0]).toMatchObject({ PrivateNote: "after create", SyncToken: "1" });
  });

  it("holds later rows while the create backs off (message ack'ed, nothing sent before the create)", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const createId = await record(order, create);
    fake.script(realm, { entity: "invoice", op: "create" }, 429, faultBody("003001", "ThrottleExceeded", "Throttle exceeded", "SERVICE"));
    await send(slow, [createId]);
    const [backingOff] = await waitFor(
      "the 429 to be recorded",
      () => rows([createId]),
      ([r]) => r.attempts === 1,
    );
    expect(backingOff.status).toBe("pending");
    expect(backingOff.last_error).toMatch(/429/);
    // Backoff: the retry is due a base delay (600 s here) later.
    expect(backingOff.enqueued_at!.getTime()).toBeGreaterThan(Date.now() + 500_000);

    const updateId = await record(order, update({ private_note: "later" }));
    await send(slow, [updateId]);
    await waitLog(slow, (l) => l.msg === "accounting row waits for an earlier retry" && l.outbox_id === updateId);
    expect(await rows([createId, updateId])).toMatchObject([
      { status: "pending", attempts: 1 },
      { status: "pending", attempts: 0 },
    ]);
    expect(requestIdsOf(realm)).toEqual([`create customer crm-client-${order.clientId} 200`, `create invoice crm-${createId}-create 429`]);
  });

  it("does not fail a delete forever after its create died, nor create an invoice deleted before it was sent", async () => {
    const { company, realm } = await connectedCompany();
    const dying = await arrangeOrder(company);
    fake.script(
      realm,
      { entity: "invoice", op: "create" },
      400,
      faultBody("6000", "A business validation error has occurred while processing your request", "Business Validation Error: bad line"),
      3,
    );
    const createId = await record(dying, create);
    await send(fast, [createId]);
    await waitStatus([createId], "dead");
    const deleteId = await record(dying, del);
    await send(fast, [deleteId]);
    const [deleted] = await waitStatus([deleteId], "done");
    expect(deleted.last_error).toBeNull();
    expect(fake.apiRequests(realm).filter((r) => r.op === "delete")).toEqual([]);

    const gone = await arrangeOrder(company);
    const ids = [await record(gone, create), await record(gone, update({ private_note: "x" })), await record(gone, del)];
    await sql("update invoices set deleted_at = now() where id = $1", [gone.invoiceId]);
    await sql("update projects set deleted_at = now() where id = $1", [gone.projectId]);
    const requestsBefore = fake.apiRequests(realm).length;
    await send(fast, ids);
    await waitStatus(ids, "done");
    expect(fake.apiRequests(realm).length).toBe(requestsBefore);
  });
});

describe("accounting delivery: failures", () => {
  it("refreshes an expired access token, saving the rotated refresh token every time, and refreshes once on a 401", async () => {
    const { company, creds, realm } = await connectedCompany();
    const deliver = async () => {
      const id = await record(await arrangeOrder(company), create);
      await send(fast, [id]);
      return (await waitStatus([id], "done"))[0];
    };
    await deliver();
    expect(tokenCalls(creds)).toBe(1);
    await deliver(); // the saved access token is still valid
    expect(tokenCalls(creds)).toBe(1);

    await sql("update accounting_connections set access_token_expires_at = now() - interval '1 minute' where company_id = $1", [
      company.companyId,
    ]);
    await deliver(); // works only with the refresh token saved by the first refresh
    expect(tokenCalls(creds)).toBe(2);

    fake.revokeAccessTokens(realm);
    const row = await deliver();
    expect(row.attempts).toBe(1);
    expect(tokenCalls(creds)).toBe(3);
    // The rejected request (this order's customer create) was repeated once with the new token.
    expect(
      requestIdsOf(realm)
        .filter((r) => r.startsWith("create customer"))
        .slice(-2)
        .map((r) => r.split(" ").at(-1)),
    ).toEqual(["401", "200"]);
    const [conn] = await sql<{ refresh_token: string }>("select refresh_token from accounting_connections where company_id = $1", [
      company.companyId,
    ]);
    expect(conn.refresh_token).toBe(fake.currentRefreshToken(creds.clientId));
  });

  it("keeps a rotated refresh token whose save failed, and saves it on the next attempt instead of refreshing with the dead one", async () => {
    const { company, creds } = await connectedCompany();
    // The first save of this connection's tokens fails after the token endpoint rotated them, as when the
    // database fails at that moment (a sequence counts across the rollback).
    const name = `fail_token_save_${company.companyId}`;
    await sql(`create sequence ${name}`);
    await sql(`create function ${name}() returns trigger language plpgsql as $$
      begin
        if new.company_id = ${company.companyId} and nextval('${name}') = 1 then raise exception 'the database failed'; end if;
        return new;
      end $$`);
    await sql(`create trigger ${name} before update on accounting_connections for each row execute function ${name}()`);
    try {
      const id = await record(await arrangeOrder(company), create);
      await send(fast, [id]);
      await waitStatus([id], "done");
    } finally {
      await sql(`drop trigger ${name} on accounting_connections`);
      await sql(`drop function ${name}(); drop sequence ${name}`);
    }
    expect(tokenCalls(creds)).toBe(1);
    const [conn] = await sql<{ refresh_token: string }>("select refresh_token from accounting_connections where company_id = $1", [
      company.companyId,
    ]);
    expect(conn.refresh_token).toBe(fake.currentRefreshToken(creds.clientId));
  });

  it("recovers from a stale SyncToken (Fault 5010) by reading the invoice and retrying with its SyncToken", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const createId = await record(order, create);
    await send(fast, [createId]);
    await waitStatus([createId], "done");
    const remote = fake.invoices(realm)[0];
    fake.editInvoice(realm, remote.Id, { PrivateNote: "edited in the accounting system" }); // SyncToken 0 → 1

    const updateId = await record(order, update({ customer_memo: "memo" }));
    await send(fast, [updateId]);
    const [row] = await waitStatus([updateId], "done");
    expect(row.attempts).toBe(1);
    expect(requestIdsOf(realm).slice(2)).toEqual([
      `update invoice crm-${updateId}-update-0 400`,
      `read invoice - 200`,
      `update invoice crm-${updateId}-update-1 200`,
    ]);
    expect(fake.apiRequests(realm).at(-3)!.body).toMatchObject({ SyncToken: "0" });
    expect(fake.invoices(realm)[0]).toMatchObject({
      SyncToken: "2",
      CustomerMemo: { value: "memo" },
      PrivateNote: "edited in the accounting system",
    });
    expect(await link(company.companyId, "invoice", order.invoiceId)).toMatchObject({ sync_token: "2" });
  });

  it("retries 429 and 5xx with backoff until the operation succeeds, once", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    fake.script(realm, { entity: "invoice", op: "create" }, 429, faultBody("003001", "ThrottleExceeded", "Throttle exceeded", "SERVICE"));
    fake.script(realm, { entity: "invoice", op: "create" }, 500, "Internal Server Error");
    const id = await record(order, create);
    await send(fast, [id]);
    const [row] = await waitStatus([id], "done");
    expect(row).toMatchObject({ attempts: 3, last_error: null });
    expect(
      fake
        .apiRequests(realm)
        .filter((r) => r.entity === "invoice")
        .map((r) => r.status),
    ).toEqual([429, 500, 200]);
    expect(fake.invoices(realm)).toHaveLength(1);
  });

  it("fails a row on a Fault (4xx, or with HTTP 200) with its text, and makes it dead after the attempts run out", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    fake.script(
      realm,
      { entity: "invoice", op: "create" },
      200,
      faultBody(
        "6000",
        "A business validation error has occurred while processing your request",
        "Business Validation Error: Txn date is in a closed period",
      ),
      1,
    );
    const id = await record(order, create);
    await send(slow, [id]); // slow: the row stays `failed` for a look
    const [failed] = await waitStatus([id], "failed");
    expect(failed.attempts).toBe(1);
    expect(failed.last_error).toContain("6000");
    expect(failed.last_error).toContain("Txn date is in a closed period");

    const other = await arrangeOrder(company);
    fake.script(
      realm,
      { entity: "invoice", op: "create" },
      400,
      faultBody(
        "6000",
        "A business validation error has occurred while processing your request",
        "Business Validation Error: Customer is inactive",
      ),
      3,
    );
    const deadId = await record(other, create);
    await send(fast, [deadId]);
    const [dead] = await waitStatus([deadId], "dead");
    expect(dead.attempts).toBe(3);
    expect(dead.last_error).toContain("Customer is inactive");
    expect(dead.processed_at).not.toBeNull();

    const status = await accountingStatus(db(), { companyId: company.companyId });
    expect(status).toMatchObject({ connected: true, realm_id: realm, pending: 0, failed: 1, dead: 1, done: 0 });
    expect(status.last_error?.error).toMatch(/Customer is inactive|closed period/);
  });

  it("makes a row dead through the dead-letter queue when the consumer keeps crashing on it", async () => {
    const { company } = await connectedCompany();
    const order = await arrangeOrder(company);
    const createId = await record(order, create);
    await send(fast, [createId]);
    await waitStatus([createId], "done");
    // A malformed change the consumer cannot even look up (a bug's stand-in): it throws every time.
    const [{ id }] = await sql<{ id: string }>(
      `insert into accounting_outbox (company_id, project_id, invoice_id, operation, payload) values ($1, $2, $3, 'update', '{"changes":{"client_id":"not-a-number"}}') returning id`,
      [order.companyId, order.projectId, order.invoiceId],
    );
    await send(fast, [Number(id)]);
    const [row] = await waitStatusWithin(DEAD_LETTER_WITHIN_MS, [Number(id)], "dead");
    expect(row.last_error).toMatch(/^delivery crashed: database error: .*dead-letter queue$/s);
    expect(row.last_error).not.toMatch(/Failed query|params:/); // the query and its parameters stay out of errors and logs
  }, 120_000);
});

describe("accounting delivery: connections, cron and tenants", () => {
  it("keeps rows pending with a clear error while the company has no connection, then delivers after connect via the cron pass", async () => {
    const company = await newCompany({ accountingSync: true });
    const order = await arrangeOrder(company);
    const id = await record(order, create);
    await send(fast, [id]);
    const [row] = await waitFor(
      "the missing connection to be noted",
      () => rows([id]),
      ([r]) => r.last_error !== null,
    );
    expect(row).toMatchObject({ status: "pending", attempts: 0 });
    expect(row.last_error).toContain(`no accounting connection for company ${company.companyId}`);
    expect(await accountingStatus(db(), { companyId: company.companyId })).toMatchObject({
      connected: false,
      pending: 1,
      last_error: { outbox_id: Number(id) },
    });

    // The cron pass leaves unconnected companies alone…
    await sql(
      "update accounting_outbox set created_at = now() - interval '10 minutes', enqueued_at = now() - interval '10 minutes' where id = $1",
      [id],
    );
    await fast.worker.scheduled();
    expect((await rows([id]))[0].enqueued_at!.getTime()).toBeLessThan(Date.now() - 5 * 60_000);

    // …and sends their rows once connected.
    const creds = fake.addRealm(`realm-${process.pid}-late`);
    await connectAccounting(db(), {
      companyId: company.companyId,
      realmId: creds.realm,
      ...creds,
      baseUrl: fake.url,
      tokenUrl: fake.tokenUrl,
    });
    await fast.worker.scheduled();
    await waitStatus([id], "done");
    expect(fake.invoices(creds.realm)).toHaveLength(1);
  });

  it("connecting makes the company's waiting rows due at once: the next pass sends them, fresh or not, and only once", async () => {
    const company = await newCompany({ accountingSync: true });
    const waiting = await record(await arrangeOrder(company), create);
    await send(fast, [waiting]);
    await waitFor(
      "the missing connection to be noted",
      () => rows([waiting]),
      ([r]) => r.last_error !== null,
    );
    // Handed off seconds ago: the staleness rule alone would leave it for five minutes.
    await fast.worker.scheduled();
    expect((await rows([waiting]))[0]).toMatchObject({ status: "pending", attempts: 0 });

    const creds = fake.addRealm(`realm-${process.pid}-due`);
    const connected = await connectAccounting(db(), {
      companyId: company.companyId,
      realmId: creds.realm,
      ...creds,
      baseUrl: fake.url,
      tokenUrl: fake.tokenUrl,
    });
    expect(connected.waiting).toBe(1);
    // A row recorded after the connection is not re-sent by the pass (its own hand-off covers it).
    const after = await record(await arrangeOrder(company), create);
    await fast.worker.scheduled();
    await waitStatus([waiting], "done");
    expect((await rows([after]))[0]).toMatchObject({ status: "pending", enqueued_at: null });
    const sentAt = (await rows([waiting]))[0].enqueued_at!.getTime();
    await fast.worker.scheduled();
    expect((await rows([waiting]))[0].enqueued_at!.getTime()).toBe(sentAt);
    expect(fake.invoices(creds.realm)).toHaveLength(1);
  });

  it("keeps rows pending when the token endpoint rejects the refresh token (invalid_grant)", async () => {
    const { company, creds, realm } = await connectedCompany();
    await sql("update accounting_connections set refresh_token = 'revoked' where company_id = $1", [company.companyId]);
    const id = await record(await arrangeOrder(company), create);
    await send(fast, [id]);
    const [row] = await waitFor(
      "the rejection to be noted",
      () => rows([id]),
      ([r]) => r.last_error !== null,
    );
    expect(row).toMatchObject({ status: "pending", attempts: 0 });
    expect(row.last_error).toMatch(/token refresh rejected \(400 invalid_grant/);
    expect(fake.apiRequests(realm)).toEqual([]);
    expect(fake.tokenRequests().at(-1)!.body.refresh_token).toBe("revoked");
    expect(creds.refreshToken).not.toBe("revoked");
  });

  it("repairs a crash between commit and enqueue with the cron pass", async () => {
    const { company, realm } = await connectedCompany();
    const order = await arrangeOrder(company);
    const lost = await record(order, create); // committed, never sent
    const fresh = await record(await arrangeOrder(company), create); // too recent for the pass
    await sql("update accounting_outbox set created_at = now() - interval '6 minutes' where id = $1", [lost]);
    await fast.worker.scheduled();
    const [row] = await waitStatus([lost], "done");
    expect(row.enqueued_at).not.toBeNull();
    expect(fake.invoices(realm)).toHaveLength(1);
    expect((await rows([fresh]))[0]).toMatchObject({ status: "pending", enqueued_at: null });
  });

  it("never sends company A's change to company B's realm", async () => {
    const a = await connectedCompany();
    const b = await connectedCompany();
    const orderA = await arrangeOrder(a.company, { clientName: "Same Name", items: [["Tee", "1", "11.00"]] });
    const orderB = await arrangeOrder(b.company, { clientName: "Same Name", items: [["Tee", "1", "22.00"]] });
    const idsA = [await record(orderA, create), await record(orderA, update({ private_note: "A" }))];
    const idsB = [await record(orderB, create), await record(orderB, update({ private_note: "B" }))];
    await send(fast, [idsA[0], idsB[0], idsA[1], idsB[1]]); // one batch, interleaved
    await waitStatus([...idsA, ...idsB], "done");

    expect(fake.invoices(a.realm)).toEqual([
      expect.objectContaining({ PrivateNote: "A", Line: [expect.objectContaining({ Amount: 11 })] }),
    ]);
    expect(fake.invoices(b.realm)).toEqual([
      expect.objectContaining({ PrivateNote: "B", Line: [expect.objectContaining({ Amount: 22 })] }),
    ]);
    for (const [who, ids] of [
      [a, idsA],
      [b, idsB],
    ] as const) {
      const mine = fake.apiRequests().filter((r) => ids.some((id) => r.query.requestid?.startsWith(`crm-${id}-`)));
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((r) => r.realm === who.realm)).toBe(true);
    }
    // Every request used a token of the realm it went to.
    expect(fake.apiRequests().filter((r) => r.tokenRealm !== null && r.tokenRealm !== r.realm)).toEqual([]);
    const linkA = await link(a.company.companyId, "invoice", orderA.invoiceId);
    const linkB = await link(b.company.companyId, "invoice", orderB.invoiceId);
    expect(linkA.remote_id).toBe(fake.invoices(a.realm)[0].Id);
    expect(linkB.remote_id).toBe(fake.invoices(b.realm)[0].Id);
    expect(await link(b.company.companyId, "invoice", orderA.invoiceId)).toBeUndefined();
    expect(await accountingStatus(db(), { companyId: b.company.companyId })).toMatchObject({ realm_id: b.realm, done: 2, pending: 0 });
  });
});

describe("admin commands", () => {
  it("accounting connect stores the connection and accounting status shows counts without secrets", async () => {
    const { company, creds } = await connectedCompany();
    const status = await accountingStatus(db(), { companyId: company.companyId });
    expect(status).toEqual({
      company_id: company.companyId,
      sync_enabled: true,
      connected: true,
      realm_id: creds.realm,
      base_url: fake.url,
      access_token_expires_at: null,
      pending: 0,
      failed: 0,
      dead: 0,
      done: 0,
      last_error: null,
    });
    const text = JSON.stringify(status);
    for (const secret of [creds.clientSecret, creds.refreshToken, creds.clientId]) expect(text).not.toContain(secret);

    // Reconnecting replaces the credentials and forgets the old access token.
    await sql(
      "update accounting_connections set access_token = 'old', access_token_expires_at = now() + interval '1 hour' where company_id = $1",
      [company.companyId],
    );
    const out = await connectAccounting(db(), {
      companyId: company.companyId,
      realmId: "other-realm",
      clientId: "c",
      clientSecret: "s",
      refreshToken: "r",
    });
    expect(out).toEqual({
      company_id: company.companyId,
      waiting: 0,
      realm_id: "other-realm",
      base_url: "https://quickbooks.api.intuit.com",
      token_url: "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
    });
    const [conn] = await sql("select * from accounting_connections where company_id = $1", [company.companyId]);
    expect(conn).toMatchObject({
      realm_id: "other-realm",
      client_id: "c",
      client_secret: "s",
      refresh_token: "r",
      access_token: null,
      base_url: null,
    });
  });

  it("rejects an unknown company and a malformed URL", async () => {
    await expect(
      connectAccounting(db(), { companyId: 2_000_000_000, realmId: "r", clientId: "c", clientSecret: "s", refreshToken: "t" }),
    ).rejects.toThrow(/does not exist/);
    const company = await newCompany();
    await expect(
      connectAccounting(db(), {
        companyId: company.companyId,
        realmId: "r",
        clientId: "c",
        clientSecret: "s",
        refreshToken: "t",
        baseUrl: "ftp://x",
      }),
    ).rejects.toThrow(/--base-url must be an absolute http\(s\) URL/);
    await expect(
      connectAccounting(db(), {
        companyId: company.companyId,
        realmId: "r",
        clientId: "c",
        clientSecret: "s",
        refreshToken: "t",
        tokenUrl: "https://u:p@x.example",
      }),
    ).rejects.toThrow(/--token-url must not carry credentials/);
    await expect(accountingStatus(db(), { companyId: 2_000_000_000 })).rejects.toThrow(/does not exist/);
  });
});
