import { createAuthRoute, idParam, jsonContent, type Router, schemaOnce } from "../../../http/openapi";
import { createContents } from "../contents/change";
import { changedSchema, itemCreateSchema, MAX_CONTENTS } from "../contents/schema";
import { orderItemSchema, serializeOrderItem } from "../decorations/schema";
import { serializeInvoice } from "../serialize";
import { insertItem } from "./queries";

export const itemChangedSchema = schemaOnce(() => changedSchema("item", orderItemSchema(), "InvoiceItemChanged"));

const route = createAuthRoute({
  operationId: "createOrderItem",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  readsFirst: true,
  errors: [404],
  method: "post",
  idempotent: true,
  path: "/orders/{id}/items",
  tags: ["Order contents"],
  summary: "Add a line item to an order",
  description:
    "Adds a line item to the order's invoice and answers it with the invoice's new totals. `quantity` defaults to the sum of " +
    "`sizes`, else 1; sent together they must agree (400 naming `quantity`). `position` (0-based) places the item among the " +
    "live items, moving the later ones down; omitted or past the end, it goes last. Positions stay dense (0 … n−1) and unique, " +
    `also under concurrent writes. An order holds at most ${MAX_CONTENTS} live items (400 beyond). The order's and invoice's ` +
    "`updated_at` move on. When accounting sync applies to the order (the company setting, or the invoice was synced before), an " +
    "accounting `update` that resends the invoice's lines is queued in the same statement. Another company's order is 404.",
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: itemCreateSchema() } } },
  },
  responses: {
    200: { description: "The new item and the invoice after the change", content: jsonContent(itemChangedSchema) },
  },
});

export const registerCreateItem = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return createContents(
      c,
      id,
      (change, read) => insertItem(change, read, body),
      (result) => ({ item: serializeOrderItem(result.record, [], new Set()), invoice: serializeInvoice(result.invoice, result.totals) }),
    );
  });
