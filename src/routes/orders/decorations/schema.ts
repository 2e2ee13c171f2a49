import { z } from "@hono/zod-openapi";
import Big from "big.js";
import { DECORATION_LOCATIONS, DECORATION_METHODS, DECORATION_UNITS, type decorations } from "../../../db/schema/decorations";
import { invoiceItemSchema, serializeItem } from "../../../domain/invoice-item";
import { dbId, digitsInt, MAX_INT_ID, nullableText, schemaOnce, text, timestamp, wireFields } from "../../../http/openapi";
import { decimalInput, plainDecimal } from "../../../platform/money";
import { changedSchema, contentsParams, MAX_CONTENTS } from "../contents/schema";
import { orderUpdatePreviousSchema } from "../schema";

/*
 * A line item's decorations: their fields (one schema for the decoration routes and the whole-order
 * writes), the rules between fields, and what the routes answer.
 */

/** Live decorations a line item holds at most. */
export const MAX_DECORATIONS = 50;
const MAX_COLORS = 20;
/** Screens of a screen print at most. */
const MAX_COLOR_COUNT = 20;
const MAX_STITCH_COUNT = 1_000_000;
const MAX_DIMENSION = "999999.99";

const list = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(", ");

const colorSchema = schemaOnce(() =>
  z
    .strictObject({
      name: text(100).min(1, "name must not be blank").openapi({ example: "Red" }),
      code: nullableText(50, "PMS 186 C").openapi({ description: "A colour code: Pantone (PMS 186 C), a thread number (Madeira 1147) …" }),
    })
    .openapi("DecorationColor"),
);

const dimension = (what: string) =>
  decimalInput({ scale: 2, min: 0, max: MAX_DIMENSION, example: "11.5", description: `${what}, in \`unit\`` })
    .nullable()
    .optional();

/** The fields a decoration is written with (location and method required on create). */
const fields = () => ({
  location: z.enum(DECORATION_LOCATIONS).openapi({ description: `Where it goes: one of ${list(DECORATION_LOCATIONS)}` }),
  location_detail: nullableText(200, "3 in below the collar").openapi({
    description: "Free text about the place; required when `location` is `other`",
  }),
  method: z.enum(DECORATION_METHODS).openapi({ description: `How it is applied: one of ${list(DECORATION_METHODS)}` }),
  colors: z
    .array(colorSchema())
    .max(MAX_COLORS)
    .optional()
    .openapi({ description: `Ink or thread colours, at most ${MAX_COLORS}`, example: [{ name: "Red", code: "PMS 186 C" }] }),
  color_count: z
    .number()
    .int()
    .min(1)
    .max(MAX_COLOR_COUNT)
    .nullable()
    .optional()
    .openapi({ description: "Screens of a screen print (only with `screen_print`); at least the number of `colors`", example: 2 }),
  stitch_count: z
    .number()
    .int()
    .min(1)
    .max(MAX_STITCH_COUNT)
    .nullable()
    .optional()
    .openapi({ description: "Stitches of an embroidery (only with `embroidery`)", example: 8000 }),
  width: dimension("Width"),
  height: dimension("Height"),
  unit: z
    .enum(DECORATION_UNITS)
    .nullable()
    .optional()
    .openapi({ description: `Unit of \`width\` and \`height\`: ${list(DECORATION_UNITS)}; required with either, only with them` }),
  notes: nullableText(2000, "Match the logo file exactly"),
});
const artworkId = () =>
  dbId().nullable().optional().openapi({ description: "One of this order's live artworks (422 otherwise); null: none", example: 5 });
const position = () =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_DECORATIONS)
    .openapi({ description: "0-based place among the item's live decorations; past the end means last", example: 0 });

/** A decoration with every field known (a create, or a stored row with a PATCH applied), as the rules read it. */
export interface DecorationValues {
  location: string;
  location_detail?: string | null;
  method: string;
  colors?: unknown[];
  color_count?: number | null;
  stitch_count?: number | null;
  width?: string | null;
  height?: string | null;
  unit?: string | null;
}

/** The rules between a decoration's fields: each broken one as `{ field, message }`. */
export function decorationProblems(d: DecorationValues): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  if (d.location === "other" && !d.location_detail) out.push({ field: "location_detail", message: "Required when location is other" });
  if (d.color_count != null && d.method !== "screen_print") out.push({ field: "color_count", message: "Only with method screen_print" });
  if (d.stitch_count != null && d.method !== "embroidery") out.push({ field: "stitch_count", message: "Only with method embroidery" });
  if (d.color_count != null && (d.colors?.length ?? 0) > d.color_count) {
    out.push({ field: "colors", message: `More colors than color_count (${d.color_count})` });
  }
  const sized = d.width != null || d.height != null;
  if (sized && d.unit == null) out.push({ field: "unit", message: "Required with width or height" });
  if (!sized && d.unit != null) out.push({ field: "unit", message: "Only with width or height" });
  for (const side of ["width", "height"] as const) {
    if (d[side] != null && new Big(d[side]).eq(0)) out.push({ field: side, message: "Must be greater than 0" });
  }
  return out;
}
const checkRules = (d: DecorationValues, ctx: z.core.$RefinementCtx) => {
  for (const p of decorationProblems(d)) ctx.addIssue({ code: "custom", path: [p.field], message: p.message });
};

const sendSomething = (b: object) => Object.keys(b).length > 0;

export const decorationCreateSchema = schemaOnce(() =>
  z
    .strictObject({ ...fields(), artwork_id: artworkId(), position: position().optional() })
    .superRefine(checkRules)
    .openapi("DecorationCreate"),
);
export type DecorationCreate = z.infer<ReturnType<typeof decorationCreateSchema>>;

/** A PATCH: the fields sent change; the rules hold for the decoration as it is after the change (checked against the stored one). */
export const decorationPatchSchema = schemaOnce(() =>
  z
    .strictObject({ ...fields(), artwork_id: artworkId(), position: position() })
    .partial()
    .refine(sendSomething, { message: "Send at least one field to change" })
    .openapi("DecorationPatch"),
);
export type DecorationPatch = z.infer<ReturnType<typeof decorationPatchSchema>>;

export const decorationReorderSchema = schemaOnce(() =>
  z
    .strictObject({
      ids: z
        .array(dbId())
        .max(MAX_DECORATIONS)
        .openapi({ description: "Every live decoration id of the item, each once, in the new order", example: [12, 11] }),
    })
    .openapi("DecorationReorder"),
);

/**
 * A decoration of a line item in a whole-order write (POST /orders, PUT by external id, the batch): the
 * fields of its POST, its place its index, and its artwork as `artwork_index`, the index of one of the
 * same body's `artworks` (their ids do not exist before the write).
 */
export const orderLineDecorationSchema = schemaOnce(() =>
  z
    .strictObject({
      ...fields(),
      artwork_index: z
        .number()
        .int()
        .min(0)
        .max(MAX_CONTENTS - 1)
        .nullable()
        .optional()
        .openapi({ description: "0-based index of one of this body's `artworks`: the decoration's artwork", example: 0 }),
    })
    .superRefine(checkRules)
    .openapi("OrderLineDecoration"),
);
export type OrderLineDecoration = z.infer<ReturnType<typeof orderLineDecorationSchema>>;

// ---- Responses ----

export const decorationSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      item_id: z.number().int().openapi({ description: "The line item it is on" }),
      location: z.enum(DECORATION_LOCATIONS),
      location_detail: z.string().nullable(),
      method: z.enum(DECORATION_METHODS),
      colors: z.array(z.object({ name: z.string(), code: z.string().nullable() })),
      color_count: z.number().int().nullable(),
      stitch_count: z.number().int().nullable(),
      width: z.string().nullable().openapi({ description: "Decimal string", example: "11.5" }),
      height: z.string().nullable().openapi({ description: "Decimal string", example: "4" }),
      unit: z.enum(DECORATION_UNITS).nullable(),
      artwork_id: z.number().int().nullable().openapi({ description: "One of the order's live artworks (null: none, or it was deleted)" }),
      notes: z.string().nullable(),
      position: z.number().int(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Decoration"),
);
export type DecorationWire = z.infer<ReturnType<typeof decorationSchema>>;

/**
 * `data.previous_attributes` of an `order.updated` that changed a line item's decorations; null (or absent)
 * after other changes (the payload carries the member as null when an event has none: src/webhooks/events.ts).
 */
/**
 * `order.updated`'s `previous_attributes`: the order's own fields a change replaced (PATCH, PUT, a batch),
 * or, for a change of a line item's decorations, the item and its decorations before it.
 */
export const orderUpdatedPreviousSchema = schemaOnce(() =>
  orderUpdatePreviousSchema()
    .extend({
      item_id: z.number().int().optional().openapi({ description: "The line item whose decorations changed" }),
      decorations: z
        .array(decorationSchema())
        .optional()
        .openapi({ description: "That item's live decorations before the change, by position" }),
    })
    .openapi("OrderUpdatedPrevious"),
);

/** A line item of an order with its decorations, by position (GET /orders/{id} and the item routes). */
export const orderItemSchema = schemaOnce(() =>
  invoiceItemSchema()
    .extend({ decorations: z.array(decorationSchema()).openapi({ description: "Live decorations, by position" }) })
    .openapi("OrderItem"),
);

type Row = typeof decorations.$inferSelect;

/** An order's item with its decorations (rows of that item, in order). */
export const serializeOrderItem = (
  item: Parameters<typeof serializeItem>[0],
  rows: readonly Row[],
  liveArtworks: ReadonlySet<number>,
): z.infer<ReturnType<typeof orderItemSchema>> => ({
  ...serializeItem(item),
  decorations: rows.map((d) => serializeDecoration(d, liveArtworks)),
});

/** A decoration row → the wire; `liveArtworks`: the order's live artwork ids (a deleted artwork shows as none). */
export const serializeDecoration = (row: Row, liveArtworks: ReadonlySet<number>): DecorationWire => ({
  id: row.id,
  item_id: row.invoiceItemId,
  location: row.location as DecorationWire["location"],
  location_detail: row.locationDetail,
  method: row.method as DecorationWire["method"],
  colors: row.colors.map((c) => ({ name: c.name, code: c.code ?? null })),
  ...wireFields(row, ["colorCount", "stitchCount"]),
  width: row.width === null ? null : plainDecimal(row.width),
  height: row.height === null ? null : plainDecimal(row.height),
  unit: row.unit as DecorationWire["unit"],
  artwork_id: row.artworkId !== null && liveArtworks.has(row.artworkId) ? row.artworkId : null,
  ...wireFields(row, ["notes", "position", "createdAt", "updatedAt"]),
});

// ---- Parameters and answers of the decoration routes ----

/** `{id}`, `{item_id}` and `{decoration_id}`. */
export const decorationParams = () =>
  contentsParams("item_id", "Line item").extend({
    decoration_id: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({
      param: { name: "decoration_id", in: "path" },
      description: "Decoration id",
      example: 12,
    }),
  });

export const decorationChangedSchema = schemaOnce(() => changedSchema("decoration", decorationSchema(), "DecorationChanged"));
export const decorationsReorderedSchema = schemaOnce(() =>
  changedSchema(
    "decorations",
    z.array(decorationSchema()).openapi({ description: "The item's live decorations in their new order" }),
    "DecorationsReordered",
  ),
);
