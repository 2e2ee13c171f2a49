import { z } from "@hono/zod-openapi";
import { catalogItems } from "../../../src/db/schema";
import { nullableText, text } from "../../../src/http/openapi";
import { decimalInput, MAX_MONEY } from "../../../src/platform/money";
import { parseRecord, refSchema, remember, type SectionImporter } from "./kit";

/** A catalog item as the import file spells it; money as a decimal string or number with at most two decimals. */
const CatalogItemImportSchema = z.strictObject({
  ref: refSchema.optional(),
  title: text(500).min(1, "title must not be blank"),
  sku: nullableText(100),
  description: nullableText(5000),
  unit_price: decimalInput({ scale: 2, min: 0, max: MAX_MONEY }).nullable().optional(),
  category: nullableText(200),
  image_url: z.url().max(2048).nullable().optional(),
});

/** `catalog_items: [{ ref?, title, sku?, description?, unit_price?, category?, image_url? }]` — one multi-row insert. */
export const importCatalogItems: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(CatalogItemImportSchema, r, `catalog_items[${i}]`));
  if (!parsed.length) return;
  const rows = await ctx.tx
    .insert(catalogItems)
    .values(
      parsed.map((p) => ({
        companyId: ctx.companyId,
        title: p.title,
        sku: p.sku ?? null,
        description: p.description ?? null,
        unitPrice: p.unit_price ?? null,
        category: p.category ?? null,
        imageUrl: p.image_url ?? null,
      })),
    )
    .returning({ id: catalogItems.id });
  parsed.forEach((p, i) => {
    if (p.ref !== undefined) remember(ctx, p.ref, rows[i].id);
  });
};
