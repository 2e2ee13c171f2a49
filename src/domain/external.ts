import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";
import { schemaOnce } from "../http/schema-once";

/*
 * What clients and orders share for integrators: `external_id` (the other system's id, unique among the
 * company's live rows of the resource) and `metadata` (key-value pairs, Stripe's rules). The request
 * fields, the rule a PATCH follows for metadata (merge; "" or null removes a key), and the path parameter
 * of the upserts (`…/by-external-id/{external_id}`).
 */

export const EXTERNAL_ID_MAX = 255;
export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

/** No control, format, surrogate or unassigned character (Unicode category C). */
const PRINTABLE = /^[^\p{C}]+$/u;
const length = (s: string) => [...s].length;

/** 1–255 printable characters, kept exactly as sent (compared case-sensitively, never trimmed). */
export const externalIdText = () =>
  z
    .string()
    .min(1, { error: "Must not be empty", abort: true })
    .max(EXTERNAL_ID_MAX * 2, { error: `At most ${EXTERNAL_ID_MAX} characters`, abort: true })
    .refine((s) => length(s) <= EXTERNAL_ID_MAX, { message: `At most ${EXTERNAL_ID_MAX} characters`, abort: true })
    .refine((s) => PRINTABLE.test(s), { message: "Only printable characters (no control or format characters)" });

const EXTERNAL_ID_DESCRIPTION =
  `Your system's id for this row: 1–${EXTERNAL_ID_MAX} printable characters, unique among your live rows of this resource ` +
  "(another live row with it is a 409 `conflict`); kept and compared exactly as sent";

/** `external_id` of a create or PATCH body: null (PATCH) clears it. */
export const externalIdField = () =>
  externalIdText()
    .nullable()
    .optional()
    .openapi({ description: `${EXTERNAL_ID_DESCRIPTION}; null clears it`, example: "shopify-1042" });

/** The upserts' path parameter: the row is found (or made) by it. */
export const externalIdParam = (what: string) =>
  z.object({
    external_id: externalIdText().openapi({
      param: { name: "external_id", in: "path" },
      description: `The ${what}'s external id (URL-encoded): 1–${EXTERNAL_ID_MAX} printable characters`,
      example: "shopify-1042",
    }),
  });

const metadataKey = schemaOnce(() =>
  z
    .string()
    .min(1)
    .max(METADATA_KEY_MAX)
    .refine((k) => PRINTABLE.test(k) && !/[[\]]/.test(k), { message: "Printable characters, no square brackets" }),
);

/**
 * `metadata` of a request: up to 50 keys of at most 40 characters, string values of at most 500. On a
 * create, a key whose value is "" or null is not stored; on a PATCH it is removed, other keys are merged
 * into what is stored, and `metadata: null` removes every key.
 */
export const metadataField = () =>
  z
    .record(metadataKey(), z.string().max(METADATA_VALUE_MAX).nullable())
    .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `At most ${METADATA_MAX_KEYS} keys` })
    .nullable()
    .optional()
    // The record's JSON Schema, stated whole: zod's record gives no key or value bounds.
    .openapi({
      maxProperties: METADATA_MAX_KEYS,
      propertyNames: { type: "string", minLength: 1, maxLength: METADATA_KEY_MAX },
      additionalProperties: { type: ["string", "null"], maxLength: METADATA_VALUE_MAX },
      description:
        `Your key-value pairs: at most ${METADATA_MAX_KEYS} keys of up to ${METADATA_KEY_MAX} characters, string values of up to ${METADATA_VALUE_MAX}. ` +
        'On an update the keys sent are merged into the stored ones; a key set to "" or null is removed, and `metadata: null` removes them all',
      example: { shopify_order: "1042", channel: "web" },
    } as { description: string });

export type MetadataInput = Record<string, string | null> | null | undefined;

/** The stored metadata as every read returns it: an object of strings ({} when there is none). */
export const metadataSchema = schemaOnce(() =>
  z
    .record(z.string(), z.string())
    .openapi({ description: "Your key-value pairs (an empty object when there are none)", example: { shopify_order: "1042" } }),
);
export const externalIdSchema = schemaOnce(() => z.string().nullable().openapi({ description: "Your system's id for this row, or null" }));

/**
 * A metadata change in the terms SQL applies it: `stored || set - unset` (`replace` starts from {}: a
 * create, or `metadata: null`). Undefined when the body does not send metadata (the stored pairs stay).
 */
export interface MetadataChange {
  replace: boolean;
  set: Record<string, string>;
  unset: string[];
}
export function metadataChange(input: MetadataInput, create: boolean): MetadataChange | undefined {
  if (input === undefined) return create ? { replace: true, set: {}, unset: [] } : undefined;
  if (input === null) return { replace: true, set: {}, unset: [] };
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === "") unset.push(key);
    else set[key] = value;
  }
  return { replace: create, set, unset: create ? [] : unset };
}

/** The metadata a change leaves: what `metadataSql` computes in the statement, for code that decides before it writes. */
export function mergedMetadata(stored: Record<string, string>, change: MetadataChange | undefined): Record<string, string> {
  if (!change) return stored;
  const out: Record<string, string> = change.replace ? {} : { ...stored };
  Object.assign(out, change.set);
  for (const key of change.unset) delete out[key];
  return out;
}

export const tooManyMetadataKeys = (n: number, field = "metadata") => ({
  field,
  message: `Metadata would hold ${n} keys; at most ${METADATA_MAX_KEYS}`,
});

/** 409 for an external id another live row of the resource holds (the id says which, within the caller's company). */
export const externalIdTaken = (what: string, existingId: number | null, field = "external_id") =>
  new ApiError(409, "conflict", `Another ${what} already has this external_id`, [
    {
      field,
      message: existingId === null ? `Already the external id of another ${what}` : `Already the external id of ${what} ${existingId}`,
    },
  ]);

/** Two writes of one batch found the same row (by id and by external id): the later one (the earlier is item `first`). */
export const sameRow = (first: number, what: string) =>
  new ApiError(409, "conflict", `Item ${first} of this batch already addresses this ${what}`, [
    { field: "(item)", message: `Addresses the ${what} item ${first} addresses: a row may appear once per batch` },
  ]);
