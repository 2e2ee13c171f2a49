import type { Db } from "../../../src/platform/db";
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

/** Imports a whole file in one transaction: all records land, or none. */
export async function importData(db: Db, companyId: number, data: unknown) {
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError("import file must hold a JSON object");
  const known = new Set(importSections.map(([name]) => name));
  const unknown = Object.keys(data).filter((k) => !known.has(k));
  if (unknown.length) throw new ImportError(`unknown section(s): ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
  const ids: ImportContext["ids"] = {};
  await db.transaction(async (tx) => {
    for (const [name, importer] of importSections) {
      const records = (data as Record<string, unknown>)[name];
      if (records === undefined) continue;
      if (!Array.isArray(records)) throw new ImportError(`section "${name}" must be an array`);
      await importer({ tx: tx, companyId, ids }, records);
    }
  });
  return { ids };
}
