import { describe, expect, it } from "vitest";
import { db, newCompany, sql } from "../../test/support/api";
import { callTool, mcpClient, toolArguments } from "../../test/support/mcp";
import { companyRows, inRunnableOrder, type Operation, populated, tokenOperations } from "../../test/support/operations";
import { newOrder } from "../../test/support/orders";
import { connectSupplierA, useFakeSuppliers } from "../../test/support/products";
import { createToken } from "../../tools/ops/commands";
import { toolName } from "./catalog";

/*
 * The tool annotations are hints clients and stores rely on (ChatGPT's review refuses tools without
 * them): each must hold for what the tool does. They are derived from the operation (catalog.ts
 * `annotationsOf`); these tests check the derivation against the document and against what every
 * tool does when run.
 */

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

const toolOperations = async () => (await tokenOperations()).filter(({ op }) => !op.tags.includes("Webhooks"));

/**
 * This company's rows as companyRows reads them, but the accounting tables': their delivery moves them
 * on its own time. `outbox`: its row count.
 */
async function snapshot(companyId: number) {
  const [rows, [outbox]] = await Promise.all([
    companyRows(companyId, "table_name not like 'accounting%'"),
    sql<{ n: string }>("select count(*) n from accounting_outbox where company_id = $1", [companyId]),
  ]);
  return { rows, outbox: Number(outbox.n) };
}

/**
 * Arguments that reach accounting for an open-world write whose fixture body does not (a title change
 * queues nothing): a tool declared open-world must reach it with some arguments.
 */
const ACCOUNTING_ARGUMENTS: Record<string, Record<string, unknown>> = { update_order: { description: "Sent to accounting" } };

/**
 * Runs the tools of `which` operations once each on a company with one of everything (accounting sync
 * on), in an order in which each succeeds, checking the hints that a snapshot of its rows can: a
 * read-only tool changes nothing, any other changes something, an idempotent one nothing more when
 * called again. Returns the tools that queued accounting work.
 */
async function runTools(which: (operation: Operation) => boolean) {
  const co = await newCompany({ accountingSync: true });
  const { concrete, body } = await populated(co);
  const client = await mcpClient(co.token);
  const { tools } = await client.listTools();
  const reachedAccounting: string[] = [];
  const operations = inRunnableOrder((await toolOperations()).filter(which));
  for (const operation of operations) {
    const name = toolName(operation.op.operationId);
    const hints = tools.find((t) => t.name === name)!.annotations!;
    const args = toolArguments(operation, concrete(operation), body(operation));
    const before = await snapshot(co.companyId);
    const first = await callTool(client, name, args);
    expect(first.isError, `${name}: ${first.text.join(" ")}`).toBe(false);
    const after = await snapshot(co.companyId);
    if (after.outbox > before.outbox) reachedAccounting.push(name);
    if (hints.readOnlyHint) expect(after, `${name} is read-only`).toEqual(before);
    else expect(after.rows, `${name} changes data`).not.toEqual(before.rows);
    if (hints.idempotentHint && !hints.readOnlyHint) {
      await callTool(client, name, args);
      expect(await snapshot(co.companyId), `${name} is idempotent`).toEqual(after);
    }
  }
  return { co, client, tools, reachedAccounting, ran: operations.length };
}

describe("MCP tool annotations", () => {
  const suppliers = useFakeSuppliers();

  it("every tool carries the four hints, from its operation's method and declared effects", async () => {
    const co = await newCompany();
    const { tools } = await (await mcpClient(co.token)).listTools();
    const operations = await toolOperations();
    expect(tools).toHaveLength(operations.length);
    for (const { method, op } of operations) {
      const tool = tools.find((t) => t.name === toolName(op.operationId))!;
      for (const hint of HINTS) expect(typeof tool.annotations?.[hint], `${tool.name} ${hint}`).toBe("boolean");
      const effects = op["x-effects"];
      expect(effects.changes, tool.name).toEqual(
        method === "get" ? "none" : method === "post" ? expect.stringMatching(/^(adds|changes)$/) : "changes",
      );
      expect(tool.annotations, tool.name).toEqual({
        readOnlyHint: method === "get",
        destructiveHint: method !== "get" && effects.changes === "changes",
        idempotentHint: method === "get" || method === "delete",
        openWorldHint: effects.reaches.length > 0,
      });
    }
    // What the routes declare: the batches update as well as add; product tools ask the suppliers; order writes reach accounting.
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(annotations.batch_orders?.destructiveHint).toBe(true);
    expect(annotations.create_order_item?.destructiveHint).toBe(false);
    expect(annotations.search_products?.openWorldHint).toBe(true);
    expect(annotations.update_order?.openWorldHint).toBe(true);
    expect(annotations.list_clients?.openWorldHint).toBe(false);
  });

  it("read-only tools change nothing when run", async () => {
    const { reachedAccounting, ran } = await runTools((operation) => operation.method === "get");
    expect(ran).toBeGreaterThanOrEqual(8);
    expect(reachedAccounting).toEqual([]);
  });

  it("write tools: idempotent ones change nothing more the second time; a tool that queues accounting work is open-world, and each open-world one does", async () => {
    const { co, client, tools, reachedAccounting } = await runTools((operation) => operation.method !== "get");
    // Every tool that queued accounting work says so.
    const openWrites = tools.filter((t) => t.annotations?.openWorldHint && !t.annotations.readOnlyHint).map((t) => t.name);
    expect(openWrites).toEqual(expect.arrayContaining(reachedAccounting));
    // And every open-world write reaches it: with the fixture's arguments, or with ones that touch the invoice.
    const order = await newOrder(co);
    for (const name of openWrites.filter((n) => !reachedAccounting.includes(n))) {
      expect(ACCOUNTING_ARGUMENTS[name], `${name}: arguments that reach accounting`).toBeDefined();
      const { outbox } = await snapshot(co.companyId);
      expect((await callTool(client, name, { id: order.project.id, ...ACCOUNTING_ARGUMENTS[name] })).isError, name).toBe(false);
      expect((await snapshot(co.companyId)).outbox, `${name} reaches accounting`).toBeGreaterThan(outbox);
    }
    expect(reachedAccounting.length).toBeGreaterThanOrEqual(5);
  });

  it("the open-world reading tools reach a supplier", async () => {
    const co = await newCompany();
    await connectSupplierA(co.companyId, suppliers.a);
    const client = await mcpClient(co.token);
    const { tools } = await client.listTools();
    const openReads = tools.filter((t) => t.annotations?.openWorldHint && t.annotations.readOnlyHint).map((t) => t.name);
    expect(openReads.sort()).toEqual(["get_product", "search_products"]);
    const before = suppliers.a.requests.length;
    await callTool(client, "get_product", { source: "supplier_a", style: "PC61" });
    const afterGet = suppliers.a.requests.length;
    await callTool(client, "search_products", { q: "PC61" });
    expect(afterGet).toBeGreaterThan(before);
    expect(suppliers.a.requests.length).toBeGreaterThan(afterGet);
  });

  it("tools/list shows a token only the tools its scope may call: a read token none that needs write", async () => {
    const co = await newCompany();
    const { token: readToken } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const operations = await toolOperations();
    const read = await (await mcpClient(readToken)).listTools();
    const write = await (await mcpClient(co.token)).listTools();
    const needing = (scope: string) =>
      operations.filter(({ op }) => op["x-required-scope"] === scope).map(({ op }) => toolName(op.operationId));
    expect(read.tools.map((t) => t.name)).toEqual(needing("read"));
    expect(write.tools.map((t) => t.name)).toEqual(operations.map(({ op }) => toolName(op.operationId)));
    expect(needing("write").length).toBeGreaterThanOrEqual(10);
    // Every tool a read token sees is read-only.
    expect(read.tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
  });
});
