import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { accountingLinks, accountingOutbox } from "../db/schema/accounting";
import { clients } from "../db/schema/clients";
import { invoiceItems, invoices, projects, taxes } from "../db/schema/orders";
import type { Config } from "../platform/config";
import type { Db } from "../platform/db";
import type { Logger } from "../platform/logger";
import { companyClient, loadConnection } from "./connection";
import { AccountingError, isFault } from "./errors";
import { customerBody, type InvoiceSnapshot, invoiceCreateBody, invoiceUpdateFields } from "./mapping";
import { type AccountingUpdate, discountState, taxState } from "./payload";
import { type QboClient, withCurrentSyncToken } from "./qbo";

type OutboxRow = typeof accountingOutbox.$inferSelect;
/** The outbox row a message is for, with its invoice and company (the queue consumer reads them for the whole batch). */
export type DeliveryTarget = Pick<OutboxRow, "id" | "invoiceId" | "companyId">;
type Snapshot = Awaited<ReturnType<typeof loadInvoice>>;

const UNFINISHED = ["pending", "failed"];
// Namespaces (first key) of the transaction-scoped advisory locks: one invoice's rows, one client's customer.
const LOCK_INVOICE = 0x41430001;
const LOCK_CUSTOMER = 0x41430002;
/** Clock difference tolerated between the queue's delay and the database's idea of "due". */
const DUE_TOLERANCE_MS = 5_000;
const MAX_DELAY_SECONDS = 3600;

/** The settings delivery reads (platform/config). */
export type DeliveryConfig = Pick<Config, "ACCOUNTING_MAX_ATTEMPTS" | "ACCOUNTING_RETRY_BASE_SECONDS">;

/** Exponential backoff: base, 2×base, 4×base … capped at an hour. */
export const backoffSeconds = (attempts: number, base: number) => Math.min(MAX_DELAY_SECONDS, base * 2 ** Math.max(0, attempts - 1));

/**
 * What the consumer does with the message: ack it (optionally sending a fresh message for the
 * earlier row that now drives this invoice's operations), or retry it after a delay.
 */
export type Outcome = { action: "ack"; resend?: { outboxId: number; delaySeconds: number } } | { action: "retry"; delaySeconds: number };

const ACK: Outcome = { action: "ack" };

export const noConnectionError = (companyId: number) =>
  `no accounting connection for company ${companyId}: run \`accounting connect --company ${companyId} …\`; the row is sent once connected`;

/**
 * Applies outbox rows to the accounting system. Operations for one invoice apply strictly in row
 * order under an advisory lock: a message for any row processes the invoice's unfinished rows from
 * the oldest, so an update never overtakes its create, and a row is done, retried or dead before the
 * next one runs. Dead rows do not block the rows after them.
 */
export class Delivery {
  private readonly clients = new Map<number, Promise<QboClient | undefined>>();

  constructor(
    private readonly db: Db,
    private readonly config: DeliveryConfig,
    private readonly logger: Logger,
  ) {}

  /** The client for a company's own realm (cached for this batch); undefined without a connection. */
  private client(companyId: number) {
    let client = this.clients.get(companyId);
    if (!client) {
      client = loadConnection(this.db, companyId).then((conn) => conn && companyClient(this.db, conn));
      this.clients.set(companyId, client);
    }
    return client;
  }

  async deliver(target: DeliveryTarget): Promise<Outcome> {
    const outboxId = target.id;
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_INVOICE}, ${target.invoiceId})`);
      const chain = await tx
        .select()
        .from(accountingOutbox)
        .where(and(eq(accountingOutbox.invoiceId, target.invoiceId), inArray(accountingOutbox.status, UNFINISHED)))
        .orderBy(asc(accountingOutbox.id));
      // Already done or dead (a redelivered message, or processed with an earlier row).
      if (!chain.some((r) => r.id === outboxId)) return ACK;
      // The oldest row waits for a retry that is still due: that retry's message moves the invoice on.
      const head = chain[0];
      if (head.enqueuedAt && head.enqueuedAt.getTime() > Date.now() + DUE_TOLERANCE_MS) {
        this.logger.info("accounting row waits for an earlier retry", {
          outbox_id: outboxId,
          waiting_for: head.id,
          due: head.enqueuedAt.toISOString(),
        });
        return ACK;
      }

      const client = await this.client(target.companyId);
      if (!client) {
        await noteRows(tx, chain, noConnectionError(target.companyId));
        return ACK;
      }
      // Delivery writes links only, never the invoice: one snapshot serves every row of the chain.
      const snap = await loadInvoice(tx, target.companyId, target.invoiceId);
      for (const [i, row] of chain.entries()) {
        try {
          await this.apply(tx, client, row, snap);
          await tx
            .update(accountingOutbox)
            .set({ status: "done", attempts: row.attempts + 1, lastError: null, processedAt: sql`now()`, updatedAt: sql`now()` })
            .where(eq(accountingOutbox.id, row.id));
          this.logger.info("accounting row delivered", { outbox_id: row.id, operation: row.operation, company_id: row.companyId });
        } catch (e) {
          if (!(e instanceof AccountingError)) throw e;
          if (e.kind === "connection") {
            await noteRows(tx, chain.slice(i), e.message);
            this.logger.warn("accounting connection problem", { outbox_id: row.id, company_id: row.companyId, error: e.message });
            return ACK;
          }
          const attempts = row.attempts + 1;
          if (attempts >= this.config.ACCOUNTING_MAX_ATTEMPTS) {
            await tx
              .update(accountingOutbox)
              .set({ status: "dead", attempts, lastError: e.message, processedAt: sql`now()`, updatedAt: sql`now()` })
              .where(eq(accountingOutbox.id, row.id));
            this.logger.error("accounting row dead", { outbox_id: row.id, company_id: row.companyId, attempts, error: e.message });
            continue;
          }
          const delaySeconds = backoffSeconds(attempts, this.config.ACCOUNTING_RETRY_BASE_SECONDS);
          const due = sql`now() + make_interval(secs => ${delaySeconds})`;
          await tx
            .update(accountingOutbox)
            .set({
              status: e.kind === "permanent" ? "failed" : row.status,
              attempts,
              lastError: e.message,
              enqueuedAt: due,
              updatedAt: sql`now()`,
            })
            .where(eq(accountingOutbox.id, row.id));
          // The rows after it wait for it; their messages need not come back before it is due.
          const later = chain.slice(i + 1).map((r) => r.id);
          if (later.length) await tx.update(accountingOutbox).set({ enqueuedAt: due }).where(inArray(accountingOutbox.id, later));
          this.logger.warn("accounting row retrying", {
            outbox_id: row.id,
            company_id: row.companyId,
            attempts,
            delay_seconds: delaySeconds,
            error: e.message,
          });
          return row.id === outboxId ? { action: "retry", delaySeconds } : { action: "ack", resend: { outboxId: row.id, delaySeconds } };
        }
      }
      return ACK;
    });
  }

  private async apply(tx: Db, client: QboClient, row: OutboxRow, snap: Snapshot): Promise<void> {
    if (!snap) throw new AccountingError("permanent", `invoice ${row.invoiceId} does not exist`);
    const link = await findLink(tx, row.companyId, "invoice", row.invoiceId);
    const ref = link && { Id: link.remoteId, SyncToken: link.syncToken ?? "0" };

    if (row.operation === "delete") {
      if (!ref) return; // never created in the accounting system: nothing to delete
      try {
        await withCurrentSyncToken(client, ref, (token) =>
          client.deleteInvoice({ ...ref, SyncToken: token }, requestId(row, "delete", token)),
        );
      } catch (e) {
        if (!isFault(e, "610")) throw e; // 610 Object Not Found: already deleted there
      }
      await tx.delete(accountingLinks).where(linkKey(row.companyId, "invoice", row.invoiceId));
      return;
    }
    if (row.operation !== "create" && row.operation !== "update") {
      throw new AccountingError("permanent", `unknown outbox operation "${row.operation}"`);
    }
    if (!ref) {
      // Deleted before it reached the accounting system: there is nothing to create or update.
      if (snap.deletedAt) return;
      // An update of an invoice not there yet (e.g. sync switched on later) creates it from its current state.
      const customerId = await this.ensureCustomer(client, row.companyId, snap.clientId);
      const created = await client.createInvoice(invoiceCreateBody(snap, customerId), requestId(row, "create"));
      await saveLink(tx, row.companyId, "invoice", row.invoiceId, created);
      return;
    }
    if (row.operation === "create") return; // created already (a repeated create)

    const changes = (row.payload as { changes?: AccountingUpdate }).changes ?? {};
    const customerId = changes.client_id === undefined ? undefined : await this.ensureCustomer(client, row.companyId, changes.client_id);
    const fields = invoiceUpdateFields(changes, snap, customerId);
    if (!Object.keys(fields).length) return;
    const updated = await withCurrentSyncToken(client, ref, (token) =>
      client.updateInvoice({ ...fields, Id: ref.Id, SyncToken: token }, requestId(row, "update", token)),
    );
    await saveLink(tx, row.companyId, "invoice", row.invoiceId, updated);
  }

  /**
   * The client's customer id in the accounting system, creating the customer first when it has
   * none. Committed on its own (a customer outlives a failed invoice) under a per-client lock, with a
   * requestid derived from the client so concurrent or repeated creates make one customer.
   */
  private ensureCustomer(client: QboClient, companyId: number, clientId: number): Promise<string> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_CUSTOMER}, ${clientId})`);
      const link = await findLink(tx, companyId, "customer", clientId);
      if (link) return link.remoteId;
      const [c] = await tx
        .select()
        .from(clients)
        .where(and(eq(clients.id, clientId), eq(clients.companyId, companyId)));
      if (!c) throw new AccountingError("permanent", `client ${clientId} does not exist`);
      let customer: Awaited<ReturnType<typeof client.createCustomer>>;
      try {
        customer = await client.createCustomer(customerBody(c), `crm-client-${clientId}`);
      } catch (e) {
        if (!isFault(e, "6240")) throw e;
        // 6240 Duplicate Name: display names are unique there; keep the name, made unique by the client id.
        customer = await client.createCustomer(customerBody(c, `${c.companyName} (${c.id})`), `crm-client-${clientId}-2`);
      }
      await saveLink(tx, companyId, "customer", clientId, customer);
      return customer.Id;
    });
  }
}

/**
 * The requestid of one write: derived from the outbox row and the step (and the SyncToken the write
 * is based on), never from the attempt, so a redelivered message repeats the same request.
 */
const requestId = (row: OutboxRow, step: string, syncToken?: string) =>
  `crm-${row.id}-${step}${syncToken === undefined ? "" : `-${syncToken}`}`;

/** Records a problem that is not the row's fault (no or rejected connection): no attempt counted. */
function noteRows(tx: Db, rows: OutboxRow[], error: string) {
  return tx
    .update(accountingOutbox)
    .set({ lastError: error, enqueuedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      inArray(
        accountingOutbox.id,
        rows.map((r) => r.id),
      ),
    );
}

type Entity = "customer" | "invoice";
const linkKey = (companyId: number, entity: Entity, localId: number) =>
  and(eq(accountingLinks.companyId, companyId), eq(accountingLinks.entity, entity), eq(accountingLinks.localId, localId));

async function findLink(db: Db, companyId: number, entity: Entity, localId: number) {
  const [link] = await db
    .select()
    .from(accountingLinks)
    .where(linkKey(companyId, entity, localId));
  return link;
}

function saveLink(db: Db, companyId: number, entity: Entity, localId: number, remote: { Id: string; SyncToken: string }) {
  const values = { remoteId: remote.Id, syncToken: remote.SyncToken, updatedAt: sql`now()` };
  return db
    .insert(accountingLinks)
    .values({ companyId, entity, localId, ...values })
    .onConflictDoUpdate({ target: [accountingLinks.companyId, accountingLinks.entity, accountingLinks.localId], set: values });
}

/** The invoice as delivery needs it, scoped to the row's company; deleted items are left out. */
async function loadInvoice(db: Db, companyId: number, invoiceId: number) {
  // Two plain queries in turn: on the transaction's one connection they would run in turn anyway.
  const [row] = await db
    .select({ invoice: invoices, title: projects.title, description: projects.description, taxRate: taxes.rate })
    .from(invoices)
    .innerJoin(projects, eq(projects.id, invoices.projectId))
    .leftJoin(taxes, and(eq(taxes.id, invoices.taxId), eq(taxes.companyId, invoices.companyId)))
    .where(and(eq(invoices.id, invoiceId), eq(invoices.companyId, companyId)));
  if (!row) return undefined;
  const items = await db
    .select()
    .from(invoiceItems)
    .where(and(eq(invoiceItems.invoiceId, invoiceId), eq(invoiceItems.companyId, companyId), isNull(invoiceItems.deletedAt)))
    .orderBy(asc(invoiceItems.position), asc(invoiceItems.id));
  const inv = row.invoice;
  const snapshot: InvoiceSnapshot = {
    title: row.title,
    description: row.description,
    dueDate: inv.dueDate,
    clientNotes: inv.clientNotes,
    txnDate: inv.createdAt.toISOString().slice(0, 10),
    discount: discountState(inv),
    tax: taxState(inv, row.taxRate),
    items: items.map((i) => ({ title: i.title, description: i.description, quantity: i.quantity, unitPrice: i.unitPrice, sizes: i.sizes })),
  };
  return { ...snapshot, clientId: inv.clientId, deletedAt: inv.deletedAt };
}
