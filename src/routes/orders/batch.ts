import type { z } from "@hono/zod-openapi";
import {
  addressKey,
  BATCH_COST,
  BATCH_MAX_ITEMS,
  type BatchResource,
  batchItemSchema,
  batchRequestSchema,
  batchResponseSchema,
  createData,
  itemAddress,
  runBatch,
} from "../../changes/batch";
import { ApiError } from "../../http/errors";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { orderEnvelopeSchema, orderPatchSchema } from "./schema";
import { type OrderWrite, writeOrders } from "./upsert";
import { orderCreateSchema, orderUpsertSchema } from "./write-schema";

const DATA = { create: orderCreateSchema(), update: orderPatchSchema(), upsert: orderUpsertSchema() };
const OrderBatchItemSchema = batchItemSchema("Order", DATA);

const route = createAuthRoute({
  method: "post",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  // Its items also update and upsert rows that exist.
  changesExisting: true,
  path: "/orders/batch",
  operationId: "batchOrders",
  idempotent: true,
  tags: ["Orders"],
  summary: "Create, update and upsert up to 100 orders",
  description:
    `Up to ${BATCH_MAX_ITEMS} items, each \`create\` (as POST /orders, contents included), \`update\` (as PATCH /orders/{id}, by \`id\` ` +
    "or `external_id`) or `upsert` (as PUT /orders/by-external-id/{external_id}). Answers 200 with one result per item, in order: the " +
    "status and body its single request answers. Without `atomic` each item is written or " +
    'refused on its own; with `"atomic": true` all are written or none is (then each item that did not fail answers 424 ' +
    "`rolled_back`). An item addressing an order (an id or external id) that an earlier item addresses is a 409. Written orders get " +
    `their accounting outbox rows and webhook events as their single requests would. ${BATCH_COST} With \`Idempotency-Key\`, the ` +
    "whole batch is replayed.",
  request: { body: { required: true, content: { "application/json": { schema: batchRequestSchema("Order", "OrderBatchItem") } } } },
  responses: {
    200: {
      description: "One result per item, in item order",
      content: jsonContent(() => batchResponseSchema("Order", orderEnvelopeSchema())),
    },
  },
});

/** Orders in the batch protocol: items become writeOrders' writes. */
const orderBatch: BatchResource<
  z.infer<ReturnType<typeof orderCreateSchema>>,
  z.infer<ReturnType<typeof orderPatchSchema>>,
  z.infer<ReturnType<typeof orderUpsertSchema>>,
  OrderWrite
> = {
  data: DATA,
  writeOf(item) {
    switch (item.method) {
      case "create": {
        const body = createData(item);
        if (body instanceof ApiError) return body;
        return { method: "create", create: { body } };
      }
      case "update":
        return {
          method: "update",
          update: { address: itemAddress(item), body: item.data },
        };
      case "upsert":
        return { method: "upsert", externalId: item.external_id, body: item.data };
    }
  },
  touches(write) {
    switch (write.method) {
      case "create":
        return write.create.body.external_id ? [`external_id:${write.create.body.external_id}`] : [];
      case "upsert":
        return [`external_id:${write.externalId}`];
      case "update": {
        const { address, body } = write.update;
        const keys = [addressKey(address)];
        if (body.external_id) keys.push(`external_id:${body.external_id}`);
        return [...new Set(keys)];
      }
    }
  },
  async write(change, writes) {
    const outcomes = await writeOrders(change, writes);
    return outcomes.map((o) => ("error" in o ? o : { status: o.status, body: o.order }));
  },
};

export const registerBatchOrders = (api: Router) => {
  api.openAPIRegistry.register("OrderBatchItem", OrderBatchItemSchema);
  return api.openapi(route, async (c) => runBatch(c, c.req.valid("json"), orderBatch));
};
