import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsParams, paymentPatchSchema } from "../contents/schema";
import { serializeInvoice, serializePayment } from "../serialize";
import { paymentChangedSchema } from "./post";
import { updatePayment } from "./queries";

const route = createAuthRoute({
  operationId: "updateOrderPayment",
  readsFirst: true,
  errors: [404],
  method: "patch",
  path: "/orders/{id}/payments/{payment_id}",
  tags: ["Order contents"],
  summary: "Update a payment",
  description:
    "Partial update of one live payment of the order (only the fields sent change; at least one); answers it with the invoice's " +
    "new totals. A payment of another order, a deleted payment, or another company's order is 404.",
  request: {
    params: contentsParams("payment_id", "Payment"),
    body: { required: true, content: { "application/json": { schema: paymentPatchSchema() } } },
  },
  responses: {
    200: { description: "The payment and the invoice after the change", content: jsonContent(paymentChangedSchema) },
  },
});

export const registerPatchPayment = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, payment_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await changeContents(c, id, { kind: "payment", id: payment_id }, (change, read) => updatePayment(change, read, body));
    return c.json({ payment: serializePayment(result.record), invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
