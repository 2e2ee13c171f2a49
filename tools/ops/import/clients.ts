import { clientCreateSchema } from "../../../src/routes/clients/schema";
import { writeClients } from "../../../src/routes/clients/write";
import { parseRecord, refSchema, refused, remember, type SectionImporter } from "./kit";

const ClientImportSchema = clientCreateSchema().extend({ ref: refSchema });

/** `clients: [{ ref, ...POST /clients fields }]`, written as POST /clients/batch writes its creates (one statement). */
export const importClients: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(ClientImportSchema, r, `clients[${i}]`));
  if (!parsed.length) return;
  const outcomes = await writeClients(
    ctx.change,
    parsed.map(({ ref: _ref, ...body }) => ({ method: "create" as const, body })),
  );
  outcomes.forEach((o, i) => {
    if ("error" in o) throw refused(`clients[${i}]`, o.error);
    remember(ctx, parsed[i].ref, o.client.id);
  });
};
