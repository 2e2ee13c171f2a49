import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectError, newCompany, workerLogLines } from "../../../test/support/api";
import { connectSupplierA, connectSupplierB, leaked, useFakeSuppliers } from "../../../test/support/products";
import { type RunningWorker, startWorker } from "../../../test/support/worker";

/**
 * A second Worker with a short per-source budget (PRODUCT_SOURCE_TIMEOUT_MS=800), so sources that
 * never answer ("slow" fakes hold the request for 30 s) are cut off without slowing the suite.
 */
let worker: RunningWorker;
const fakes = useFakeSuppliers();
const secrets: object[] = [];

beforeAll(async () => {
  worker = await startWorker({
    script: inject("workerScript"),
    bindings: { ...inject("workerBindings"), PRODUCT_SOURCE_TIMEOUT_MS: "800" },
    logFile: inject("logFile"),
  });
});
afterAll(async () => {
  await worker?.dispose();
});

const baseUrl = () => `${worker.url}/api/v1`;

describe("per-source timeout", () => {
  it("search: a supplier that does not answer in time is skipped with timeout; the others answer", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a, "slow"), await connectSupplierB(co.companyId, fakes.b));
    await co.load({ catalog_items: [{ title: "Gildan 2000 tee" }] });

    const res = await co.get("/products/search?q=2000", { baseUrl: baseUrl() });
    expect(res.status).toBe(200);
    expect(res.body.skipped).toEqual([{ source: "supplier_a", reason: "timeout", message: expect.any(String) }]);
    expect(res.body.supplier_a).toMatchObject({ style: "2000", products: [], count: 0 });
    expect(res.body.supplier_b_styles.map((s: any) => s.style_id)).toEqual([39]);
    expect(res.body.local_items).toHaveLength(1);
    expect(fakes.a.requests.some((r) => r.scenario === "slow")).toBe(true);
  });

  it("search: both suppliers timing out still answers 200 with both skipped", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a, "slow"), await connectSupplierB(co.companyId, fakes.b, "slow"));
    const res = await co.get("/products/search?q=pc54", { baseUrl: baseUrl() });
    expect(res.status).toBe(200);
    expect(res.body.skipped.map((s: any) => [s.source, s.reason])).toEqual([
      ["supplier_b", "timeout"],
      ["supplier_a", "timeout"],
    ]);
  });

  it.each(["supplier_a", "supplier_b"] as const)(
    "GET /products/%s: 504 upstream_error when the supplier does not answer in time",
    async (source) => {
      const co = await newCompany();
      secrets.push(
        source === "supplier_a"
          ? await connectSupplierA(co.companyId, fakes.a, "slow")
          : await connectSupplierB(co.companyId, fakes.b, "slow"),
      );
      const res = await co.get(`/products/${source}?${source === "supplier_a" ? "style=PC54" : "styleId=39"}`, { baseUrl: baseUrl() });
      expect(expectError(res, 504, "upstream_error").details).toEqual({ source, reason: "timeout" });
    },
  );

  it("logs the timeouts without credentials", () => {
    const logs = workerLogLines().join("\n");
    expect(logs).toContain('"reason":"timeout"');
    expect(leaked(logs, ...secrets)).toEqual([]);
  });
});
