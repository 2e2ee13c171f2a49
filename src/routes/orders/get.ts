import { z } from "@hono/zod-openapi";
import { clientSchema } from "../../domain/client";
import { notFound } from "../../http/errors";
import { ifNoneMatchHeader, notModified, notModifiedResponse, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { artworkApprovalSchema } from "./approvals/schema";
import { artworkSchema, paymentSchema } from "./contents/schema";
import { orderItemSchema } from "./decorations/schema";
import { loadOrderDetail } from "./queries";
import { invoiceSchema, orderStatusSchema, projectSchema, taxSchema } from "./schema";
import { serializeOrderDetail } from "./serialize";

const orderDetailSchema = () =>
  z
    .object({
      project: projectSchema(),
      invoice: invoiceSchema(),
      invoice_items: z.array(orderItemSchema()).openapi({ description: "Live items, by position, each with its decorations" }),
      payments: z.array(paymentSchema()).openapi({ description: "Live payments, by paid date" }),
      client: clientSchema().openapi({ description: "The order's client (shown even if it was soft-deleted since)" }),
      tax: taxSchema().nullable().openapi({ description: "The invoice's tax row; null without tax" }),
      status: orderStatusSchema().nullable().openapi({ description: "The project's order status; null when none is set" }),
      artworks: z.array(
        artworkSchema()
          .extend({ approval: artworkApprovalSchema() })
          .openapi("OrderArtwork", { description: "An artwork with its latest proof approval's state" }),
      ),
    })
    .openapi("OrderDetail");

const route = createAuthRoute({
  method: "get",
  path: "/orders/{id}",
  operationId: "getOrder",
  tags: ["Orders"],
  summary: "Get an order in full",
  description:
    "The project, its default invoice with computed totals, live invoice items, payments, the client, the tax row, the status and artworks (each with its latest proof approval's state). " +
    "A deleted order, or another company's, is 404.",
  request: { params: idParam("Order (project) id"), headers: ifNoneMatchHeader() },
  errors: [404],
  responses: {
    200: withEtag({ description: "The order", content: jsonContent(orderDetailSchema) }),
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
