import { Change, type ChangeContext, type ChangeVariable } from "../../../src/changes/change";
import type { Variables } from "../../../src/http/context";
import { SYSTEM_ORIGIN } from "../../../src/http/request-context";
import type { Db } from "../../../src/platform/db";
import type { Bindings } from "../../../src/platform/env";
import type { Logger } from "../../../src/platform/logger";
import { importClients } from "./clients";
import { type ImportContext, ImportError, type SectionImporter } from "./kit";
import { importMailThreadContexts } from "./mail";
import { importOrderStatuses, importOrders, importTaxes } from "./orders";
import { importCatalogItems } from "./products";

/** Sections in dependency order (clients, statuses and taxes before the orders that reference them). */
export const importSections: [string, SectionImporter][] = [
  ["clients", importClients],
  ["order_statuses", importOrderStatuses],
  ["taxes", importTaxes],
  ["orders", importOrders],
  ["mail_thread_contexts", importMailThreadContexts],
  ["catalog_items", importCatalogItems],
];

/** Change logs go to stderr: stdout's last line is the command's JSON answer. */
const stderrLogger: Logger = {
  info: (msg, fields) => console.error(JSON.stringify({ level: "info", msg, ...fields })),
  warn: (msg, fields) => console.error(JSON.stringify({ level: "warn", msg, ...fields })),
  error: (msg, fields) => console.error(JSON.stringify({ level: "error", msg, ...fields })),
};

/**
 * The write path's context for an import: the company, no rate limit, the import's own transaction,
 * and no queues (the Worker's cron pass hands the outbox rows and deliveries on a few minutes later).
 */
function importChange(db: Db, tx: Db, companyId: number, deferred: Promise<unknown>[]) {
  const vars: Pick<Variables, ChangeVariable> = {
    auth: { companyId, tokenId: 0, scope: "write", tokenHash: "" },
    admitted: async () => {},
    logger: stderrLogger,
    transaction: async (work) => work(tx),
    defer: (task) => void deferred.push(task),
    db,
    requestId: "",
  };
  // The operator's import is no request's: its events' actor is `system`.
  const ctx: ChangeContext = { env: {} as Bindings, get: (key) => vars[key], origin: SYSTEM_ORIGIN };
  return new Change(ctx, tx, true);
}

/**
 * Imports a whole file in one transaction: all records land, or none. Clients and orders go through the
 * API's own writers (the same statements as POST /clients/batch and POST /orders/batch), so they come with
 * their webhook events, accounting outbox rows and list counters as if the API had made them; after the
 * commit their events' payloads are filled, as a request's are.
 */
export async function importData(db: Db, companyId: number, data: unknown) {
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError("import file must hold a JSON object");
  const known = new Set(importSections.map(([name]) => name));
  const unknown = Object.keys(data).filter((k) => !known.has(k));
  if (unknown.length) throw new ImportError(`unknown section(s): ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
  const ids: ImportContext["ids"] = {};
  const deferred: Promise<unknown>[] = [];
  const change = await db.transaction(async (tx) => {
    const change = importChange(db, tx, companyId, deferred);
    for (const [name, importer] of importSections) {
      const records = (data as Record<string, unknown>)[name];
      if (records === undefined) continue;
      if (!Array.isArray(records)) throw new ImportError(`section "${name}" must be an array`);
      await importer({ tx: tx, companyId, change, ids }, records);
    }
    return change;
  });
  change.publish();
  await Promise.all(deferred);
  return { ids };
}
