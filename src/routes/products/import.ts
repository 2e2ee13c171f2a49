import { z } from "@hono/zod-openapi";
import { catalogItems } from "../../db/schema";
import { parseRecord, refSchema, remember, type SectionImporter } from "../../cli/import-kit";

const text = (max: number) => z.string().trim().max(max);

/** A catalog item as the import file spells it; money as a decimal string or number with at most two decimals. */
const CatalogItemImportSchema = z.strictObject({
  ref: refSchema.optional(),
  title: text(500).min(1, "title must not be blank"),
  sku: text(100).nullable().optional(),
  description: text(5000).nullable().optional(),
  unit_price: z
    .union([z.string().trim(), z.number().nonnegative()])
    .transform(String)
    .pipe(z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, "must be a non-negative amount with at most two decimals"))
    .nullable()
    .optional(),
  category: text(200).nullable().optional(),
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
  parsed.forEach((p, i) => p.ref !== undefined && remember(ctx, p.ref, rows[i].id));
};
