import { createAuthRoute, idParam, jsonContent, type Router, schemaOnce } from "../../../http/openapi";
import { createContents } from "../contents/change";
import { changedSchema, MAX_CONTENTS, paymentCreateSchema, paymentSchema } from "../contents/schema";
import { serializeInvoice, serializePayment } from "../serialize";
import { insertPayment } from "./queries";

export const paymentChangedSchema = schemaOnce(() => changedSchema("payment", paymentSchema(), "PaymentChanged"));

const route = createAuthRoute({
  operationId: "createOrderPayment",
  readsFirst: true,
  errors: [404],
  method: "post",
  idempotent: true,
  path: "/orders/{id}/payments",
  tags: ["Order contents"],
  summary: "Record a payment on an order",
  description:
    "Records a payment against the order's invoice and answers it with the invoice's new totals: `amount_paid` counts it and " +
    "`balance_due` falls (an overpayment is allowed and shows as a negative balance). Amounts are decimal strings or JSON numbers " +
    "with at most two decimals. Payments are recorded here only: nothing is sent to the accounting system. " +
    `An order holds at most ${MAX_CONTENTS} live payments (400 beyond). Another company's order is 404.`,
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: paymentCreateSchema() } } },
  },
  responses: {
    200: {
      description: "The new payment and the invoice after the change",
      content: jsonContent(paymentChangedSchema),
    },
  },
});

export const registerCreatePayment = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return createContents(
      c,
      id,
      (change, read) => insertPayment(change, read, body),
      (result) => ({ payment: serializePayment(result.record), invoice: serializeInvoice(result.invoice, result.totals) }),
    );
  });
