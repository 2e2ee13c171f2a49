import { z } from "@hono/zod-openapi";
import type { Change } from "../../../src/changes/change";
import { type ApiError, issuesToDetails } from "../../../src/http/errors";
import { unstorableJson } from "../../../src/http/json-body";
import type { Db } from "../../../src/platform/db";
import { CommandError } from "../errors";

/** What every import section uses; the sections themselves live beside their resource's routes. */
export interface ImportContext {
  tx: Db;
  companyId: number;
  /** The API's write path (src/changes/) on the import's transaction: clients and orders are written as the API writes them. */
  change: Change;
  /** ref → new id, filled as records are created; later sections resolve refs through it. */
  ids: Record<string, number | string>;
}

export type SectionImporter = (ctx: ImportContext, records: unknown[]) => Promise<void>;

export class ImportError extends CommandError {}

/** Validates one record with the API's own schema; errors name the record and field. */
export function parseRecord<S extends z.ZodType>(schema: S, record: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(record);
  if (!result.success) {
    const fields = issuesToDetails(result.error.issues, where).map((d) => `${d.field}: ${d.message}`);
    throw new ImportError(`invalid record ${where}: ${fields.join("; ")}`);
  }
  // The same storability check as request bodies (NUL characters, absurd nesting).
  const unstorable = unstorableJson(record);
  if (unstorable) throw new ImportError(`invalid record ${where}: ${[where, ...unstorable.path].join(".")}: ${unstorable.message}`);
  return result.data;
}

export const refSchema = z.string().min(1).max(100);

/** Records the new id under the record's ref; refs are unique across the whole file. */
export function remember(ctx: ImportContext, ref: string, id: number | string) {
  if (ref in ctx.ids) throw new ImportError(`duplicate ref "${ref}"`);
  ctx.ids[ref] = id;
}

/** Resolves `<name>_ref` or `<name>_id` to an id already created in this import (or given directly). */
export function resolveRef(ctx: ImportContext, ref: string | undefined, id: number | undefined, where: string): number {
  if (id !== undefined) return id;
  if (ref !== undefined && typeof ctx.ids[ref] === "number") return ctx.ids[ref] as number;
  throw new ImportError(`${where}: unknown ref "${ref ?? ""}"`);
}

/** A record the API's write refused (an external id already taken, a status of another company…): its error as the import reports it. */
export function refused(where: string, error: ApiError): ImportError {
  const fields = Array.isArray(error.details)
    ? (error.details as { field?: string; message?: string }[]).map((d) => `${where}.${d.field}: ${d.message}`)
    : [];
  return new ImportError(`invalid record ${where}: ${fields.length ? fields.join("; ") : error.message}`);
}
