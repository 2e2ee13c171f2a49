import { clients } from "../../../src/db/schema";
import { ClientCreateSchema, clientColumns } from "../../../src/routes/clients/schema";
import { parseRecord, refSchema, remember, type SectionImporter } from "./kit";

const ClientImportSchema = ClientCreateSchema.extend({ ref: refSchema });

/** `clients: [{ ref, ...POST /clients fields }]` */
export const importClients: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(ClientImportSchema, r, `clients[${i}]`));
  if (!parsed.length) return;
  const rows = await ctx.tx
    .insert(clients)
    .values(parsed.map(({ ref: _ref, ...body }) => ({ ...clientColumns(body), companyName: body.company_name, companyId: ctx.companyId })))
    .returning({ id: clients.id });
  parsed.forEach((p, i) => {
    remember(ctx, p.ref, rows[i].id);
  });
};
