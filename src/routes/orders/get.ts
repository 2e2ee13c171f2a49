import { z } from "@hono/zod-openapi";
import { clientSchema } from "../../domain/client";
import { InvoiceItemSchema } from "../../domain/invoice-item";
import { notFound } from "../../http/errors";
import { ifNoneMatchHeader, notModified, notModifiedResponse, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, type Router } from "../../http/openapi";
import { ArtworkSchema, PaymentSchema } from "./contents/schema";
import { loadOrderDetail } from "./queries";
import { InvoiceSchema, OrderStatusSchema, ProjectSchema, TaxSchema } from "./schema";
import { serializeOrderDetail } from "./serialize";

const OrderDetailSchema = z
  .object({
    project: ProjectSchema,
    invoice: InvoiceSchema,
    invoice_items: z.array(InvoiceItemSchema).openapi({ description: "Live items, by position" }),
    payments: z.array(PaymentSchema).openapi({ description: "Live payments, by paid date" }),
    client: clientSchema().openapi({ description: "The order's client (shown even if it was soft-deleted since)" }),
    tax: TaxSchema.nullable().openapi({ description: "The invoice's tax row; null without tax" }),
    status: OrderStatusSchema.nullable().openapi({ description: "The project's order status; null when none is set" }),
    artworks: z.array(ArtworkSchema),
  })
  .openapi("OrderDetail");

const route = createAuthRoute({
  method: "get",
  path: "/orders/{id}",
  operationId: "getOrder",
  tags: ["Orders"],
  summary: "Get an order in full",
  description:
    "The project, its default invoice with computed totals, live invoice items, payments, the client, the tax row, the status and artworks. " +
    "A deleted order, or another company's, is 404.",
  request: { params: idParam("Order (project) id"), headers: ifNoneMatchHeader() },
  errors: [404],
  responses: {
    200: withEtag({ description: "The order", content: { "application/json": { schema: OrderDetailSchema } } }),
    ...notModifiedResponse,
  },
});

export const registerGetOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const order = await loadOrderDetail(c.get("db"), c.get("auth").companyId, id);
    if (!order) throw notFound("Order");
    const unchanged = notModified(c, order.etag);
    if (unchanged) return unchanged;
    return c.json(serializeOrderDetail(order), 200);
  });
