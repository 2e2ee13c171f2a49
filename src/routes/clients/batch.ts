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
import { clientCreateSchema, clientEnvelopeSchema, clientPatchSchema, clientUpsertSchema } from "./schema";
import { type ClientWrite, writeClients } from "./write";

const DATA = { create: clientCreateSchema(), update: clientPatchSchema(), upsert: clientUpsertSchema() };
const ClientBatchItemSchema = batchItemSchema("Client", DATA);

const route = createAuthRoute({
  method: "post",
  // Its items also update and upsert rows that exist.
  changesExisting: true,
  path: "/clients/batch",
  operationId: "batchClients",
  idempotent: true,
  tags: ["Clients"],
  summary: "Create, update and upsert up to 100 clients",
  description:
    `Up to ${BATCH_MAX_ITEMS} items, each \`create\` (as POST /clients), \`update\` (as PATCH /clients/{id}, by \`id\` or \`external_id\`) ` +
    "or `upsert` (as PUT /clients/by-external-id/{external_id}). Answers 200 with one result per item, in order: the status and body its " +
    "single request answers. Without `atomic` each item is written or refused on its own; with " +
    '`"atomic": true` all are written or none is (then each item that did not fail answers 424 `rolled_back`). An item addressing a row ' +
    "(an id or external id) that an earlier item addresses is a 409. Written clients get their webhook events as their single requests " +
    `would. ${BATCH_COST} With \`Idempotency-Key\`, the whole batch is replayed.`,
  request: { body: { required: true, content: { "application/json": { schema: batchRequestSchema("Client", "ClientBatchItem") } } } },
  responses: {
    200: {
      description: "One result per item, in item order",
      content: jsonContent(() => batchResponseSchema("Client", clientEnvelopeSchema())),
    },
  },
});

/** Clients in the batch protocol: items become writeClients' writes. */
const clientBatch: BatchResource<
  z.infer<ReturnType<typeof clientCreateSchema>>,
  z.infer<ReturnType<typeof clientPatchSchema>>,
  z.infer<ReturnType<typeof clientUpsertSchema>>,
  ClientWrite
> = {
  data: DATA,
  writeOf(item) {
    switch (item.method) {
      case "create": {
        const body = createData(item);
        if (body instanceof ApiError) return body;
        return { method: "create", body };
      }
      case "update": {
        const { deleted, ...body } = item.data;
        return { method: "update", address: itemAddress(item), body, deleted };
      }
      case "upsert":
        return { method: "upsert", externalId: item.external_id, body: item.data };
    }
  },
  touches(write) {
    const keys: string[] = [];
    if (write.method === "upsert") keys.push(`external_id:${write.externalId}`);
    if (write.method === "update") keys.push(addressKey(write.address));
    const claimed = "external_id" in write.body ? write.body.external_id : undefined;
    if (typeof claimed === "string") keys.push(`external_id:${claimed}`);
    return [...new Set(keys)];
  },
  async write(change, writes) {
    const outcomes = await writeClients(change, writes);
    return outcomes.map((o) => ("error" in o ? o : { status: o.status, body: { client: o.client } }));
  },
};

export const registerBatchClients = (api: Router) => {
  api.openAPIRegistry.register("ClientBatchItem", ClientBatchItemSchema);
  return api.openapi(route, async (c) => runBatch(c, c.req.valid("json"), clientBatch));
};
