import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsDeletedSchema, contentsParams } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { deletePayment } from "./queries";

const route = createAuthRoute({
  operationId: "deleteOrderPayment",
  readsFirst: true,
  errors: [404],
  method: "delete",
  path: "/orders/{id}/payments/{payment_id}",
  tags: ["Order contents"],
  summary: "Soft-delete a payment",
  description:
    "Soft-deletes the payment: it leaves the order and its totals. Answers the invoice's new totals. A repeated DELETE, a payment " +
    "of another order or another company's order is 404.",
  request: { params: contentsParams("payment_id", "Payment") },
  responses: {
    200: {
      description: "The payment was deleted",
      content: jsonContent(() => contentsDeletedSchema("payment", "PaymentDeleted")),
    },
  },
});

export const registerDeletePayment = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, payment_id } = c.req.valid("param");
    const result = await changeContents(c, id, { kind: "payment", id: payment_id }, (change, read) => deletePayment(change, read));
    return c.json({ deleted: true as const, id: payment_id, invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
