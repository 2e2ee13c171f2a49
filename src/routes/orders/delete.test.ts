import { describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany } from "../../../test/support/api";
import { newOrder, orderRows } from "../../../test/support/orders";

describe("DELETE /orders/{id}", () => {
  it("soft-deletes project and invoice; afterwards GET, PATCH and DELETE are 404 and the list hides it", async () => {
    const co = await newCompany();
    const { project, invoice } = await newOrder(co);
    const kept = await newOrder(co);
    const res = await co.del(`/orders/${project.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: project.id });
    const rows = await orderRows(project.id);
    expect(rows.project.deleted_at).not.toBeNull();
    expect(rows.invoices).toEqual([expect.objectContaining({ id: invoice.id, deleted_at: expect.any(Date) })]);

    expectError(await co.get(`/orders/${project.id}`), 404, "not_found");
    expectError(await co.patch(`/orders/${project.id}`, { title: "Back from the dead" }), 404, "not_found");
    expectError(await co.del(`/orders/${project.id}`), 404, "not_found");
    const list = await co.get("/orders");
    expect(list.body.data.map((o: any) => o.id)).toEqual([kept.project.id]);
    expect(list.body.pagination.total).toBe(1);
    expect((await orderRows(project.id)).project.title).toBe("Team tees");
  });

  it("another company's order answers exactly like a missing one, and stays", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { project } = await newOrder(a);
    const before = await orderRows(project.id);
    const foreign = await b.del(`/orders/${project.id}`, asRequest("foreign-or-missing"));
    const missing = await b.del("/orders/2000000000", asRequest("foreign-or-missing"));
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
    expect(await orderRows(project.id)).toEqual(before);
    expect((await a.get(`/orders/${project.id}`)).status).toBe(200);
  });
});
