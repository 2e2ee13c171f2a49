import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, numeric, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";
import { artworks, invoiceItems, projects } from "./orders";

/** Where on the garment a decoration goes; `other` with free text in `location_detail`. */
export const DECORATION_LOCATIONS = [
  "front",
  "back",
  "left_chest",
  "right_chest",
  "left_sleeve",
  "right_sleeve",
  "neck",
  "hood",
  "leg",
  "other",
] as const;
/** How it is applied. */
export const DECORATION_METHODS = [
  "screen_print",
  "embroidery",
  "dtg",
  "dtf",
  "heat_transfer",
  "sublimation",
  "vinyl",
  "laser",
  "other",
] as const;
/** The unit of `width` and `height`. */
export const DECORATION_UNITS = ["in", "cm", "mm"] as const;

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));

/**
 * A line item's decorations (a 3-colour print on the front, an embroidered logo on the left chest). Live
 * decorations of an item hold the positions 0 … n−1. `project_id` is the item's order, for the list's
 * filters. A decoration leaves with its item (the item's delete soft-deletes it in the same statement).
 */
export const decorations = pgTable(
  "decorations",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    projectId: ref("project_id", () => projects.id),
    invoiceItemId: ref("invoice_item_id", () => invoiceItems.id),
    location: text("location").notNull(),
    locationDetail: text("location_detail"),
    method: text("method").notNull(),
    // [{ "name": "Red", "code": "PMS 186 C" }]: a code (Pantone, thread number) is optional.
    colors: jsonb("colors").$type<{ name: string; code: string | null }[]>().notNull().default([]),
    colorCount: integer("color_count"),
    stitchCount: integer("stitch_count"),
    width: numeric("width", { precision: 8, scale: 2 }),
    height: numeric("height", { precision: 8, scale: 2 }),
    unit: text("unit"),
    // One of the order's artworks; shown as null once that artwork is deleted.
    artworkId: integer("artwork_id").references(() => artworks.id),
    notes: text("notes"),
    position: integer("position").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    // An item's decorations in order, and an order's (GET /orders/{id}).
    index("decorations_item_idx").on(t.invoiceItemId, t.position, t.id).where(sql`${t.deletedAt} is null`),
    index("decorations_project_idx").on(t.projectId).where(sql`${t.deletedAt} is null`),
    // The order list's decoration_method and decoration_location filters.
    index("decorations_company_method_idx").on(t.companyId, t.method, t.projectId).where(sql`${t.deletedAt} is null`),
    index("decorations_company_location_idx").on(t.companyId, t.location, t.projectId).where(sql`${t.deletedAt} is null`),
    check("decorations_location_ck", sql`${t.location} in (${inList(DECORATION_LOCATIONS)})`),
    check("decorations_method_ck", sql`${t.method} in (${inList(DECORATION_METHODS)})`),
    check("decorations_unit_ck", sql`${t.unit} in (${inList(DECORATION_UNITS)})`),
  ],
);
