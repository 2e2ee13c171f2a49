import { describe, expect, it } from "vitest";
import { newCompany } from "../../test/support/api";
import { mcpClient, orderWithTwoItems } from "../../test/support/mcp";

/**
 * The worked session of docs/mcp.md, with the official SDK's client against the Worker: find a client,
 * create an order for it with two line items, read the total back. `tools/cli/dev.test.ts` runs the
 * same session against `npm run dev`.
 */
describe("an assistant's session over MCP", () => {
  it("finds a client, creates an order for it with two line items and reads the total back; the API shows the same order", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [
        { ref: "lakeside", company_name: "Lakeside Run Club", email: "hi@lakeside.example" },
        { ref: "other", company_name: "Northside Print Co" },
      ],
    });
    const client = await mcpClient(co.token);
    const { customer, orderId, order } = await orderWithTwoItems(client, "lakeside");
    expect(customer.id).toBe(ids.lakeside);
    expect(order.project.client_id).toBe(ids.lakeside);
    // 24 × 32.50 + 2 × 25.00, no tax, no discount.
    expect(order.invoice_items.map((i: { title: string; quantity: string }) => [i.title, i.quantity])).toEqual([
      ["Hoodie, 2-color front print", "24"],
      ["Screen setup", "2"],
    ]);
    expect(order.invoice.totals.total).toBe("830.00");
    const rest = await co.get(`/orders/${orderId}`);
    expect(rest.body).toEqual(order);
    await client.close();
  });
});
