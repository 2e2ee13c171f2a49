import Big from "big.js";
import { describe, expect, it } from "vitest";
import { type ApiResponse, call, newCompany, type TestCompany } from "./support/api";
import { companyRows } from "./support/operations";
import { newOrder } from "./support/orders";

// Amounts are exact or refused: one rule for JSON numbers and decimal strings on every money field
// (payments, items, discounts). The bodies are sent as raw text, so a number reaches the API exactly
// as written (`1e-99999` is not what JSON.stringify would send).

interface MoneyField {
  what: string;
  field: string;
  /** Sends the field with `value` (raw JSON text) on the order `o`. */
  send: (co: TestCompany, o: Order, value: string) => Promise<ApiResponse>;
  /** The stored value as the answer shows it. */
  read: (res: ApiResponse) => string;
}

const raw = (co: TestCompany, method: string, path: string, text: string) =>
  call(method, path, { token: co.token, rawBody: text, headers: { "content-type": "application/json" } });

type Order = Awaited<ReturnType<typeof orderWith>>;
async function orderWith(co: TestCompany) {
  const { project } = await newOrder(co);
  const item = await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 1, unit_price: "1.00" });
  const payment = await co.post(`/orders/${project.id}/payments`, { amount: "1.00" });
  return { orderId: project.id as number, itemId: item.body.item.id as number, paymentId: payment.body.payment.id as number };
}

const fields: MoneyField[] = [
  {
    what: "POST /orders/{id}/payments",
    field: "amount",
    send: (co, o, v) => raw(co, "POST", `/orders/${o.orderId}/payments`, `{"amount":${v}}`),
    read: (res) => res.body.payment.amount,
  },
  {
    what: "PATCH /orders/{id}/payments/{payment_id}",
    field: "amount",
    send: (co, o, v) => raw(co, "PATCH", `/orders/${o.orderId}/payments/${o.paymentId}`, `{"amount":${v}}`),
    read: (res) => res.body.payment.amount,
  },
  {
    what: "POST /orders/{id}/items",
    field: "unit_price",
    send: (co, o, v) => raw(co, "POST", `/orders/${o.orderId}/items`, `{"title":"t","quantity":1,"unit_price":${v}}`),
    read: (res) => res.body.item.unit_price,
  },
  {
    what: "POST /orders/{id}/items",
    field: "quantity",
    send: (co, o, v) => raw(co, "POST", `/orders/${o.orderId}/items`, `{"title":"t","unit_price":"1","quantity":${v}}`),
    read: (res) => res.body.item.quantity,
  },
  {
    what: "PATCH /orders/{id}/items/{item_id}",
    field: "unit_price",
    send: (co, o, v) => raw(co, "PATCH", `/orders/${o.orderId}/items/${o.itemId}`, `{"unit_price":${v}}`),
    read: (res) => res.body.item.unit_price,
  },
  {
    what: "PATCH /orders/{id}",
    field: "discount_amount",
    send: (co, o, v) => raw(co, "PATCH", `/orders/${o.orderId}`, `{"discount_amount":${v},"discount_amount_type":"fixed_amount"}`),
    read: (res) => res.body.invoice.discount_amount,
  },
];

/** Written as JSON numbers and as strings alike: refused (400 naming the field), whichever way sent. */
const refused = [
  "1e-99999", // nonzero, read by JSON.parse as 0
  "0.1e-400",
  "1e-3", // three decimals
  "0.001",
  "1.005",
  "0.009",
  "1.0000000000000001", // read by JSON.parse as 1
  "12345678901234567890", // past the largest amount, and past what a double keeps
  "1e400", // read by JSON.parse as Infinity
  "1e12", // past the largest amount (999999999999.99)
  "-1",
];
/** Accepted either way, with the same exact value. */
const accepted: [string, string][] = [
  ["1e2", "100"],
  ["1.5E1", "15"],
  ["0.5e1", "5"],
  ["12.500", "12.5"],
  ["0.1", "0.1"],
  ["999999999.99", "999999999.99"],
  ["0", "0"],
  ["-0", "0"],
];

describe("amounts are exact or refused, numbers and strings alike, on every money field", () => {
  for (const f of fields) {
    it(`${f.what} ${f.field}`, { timeout: 60_000 }, async () => {
      const co = await newCompany();
      const order = await orderWith(co);
      const before = await companyRows(co.companyId);
      for (const value of refused) {
        for (const sent of [value, JSON.stringify(value), JSON.stringify(` ${value} `)]) {
          const res = await f.send(co, order, sent);
          expect({ sent, status: res.status, code: res.body?.error?.code }).toEqual({ sent, status: 400, code: "invalid_request" });
          expect(res.body.error.details, sent).toEqual([expect.objectContaining({ field: f.field })]);
        }
      }
      expect(await companyRows(co.companyId)).toEqual(before);
      for (const [value, expected] of accepted) {
        for (const sent of [value, JSON.stringify(value)]) {
          const res = await f.send(co, order, sent);
          expect(res.status, `${f.field}: ${sent} → ${JSON.stringify(res.body)}`).toBe(200);
          expect(new Big(f.read(res)).eq(expected), `${f.field}: ${sent} stored as ${f.read(res)}`).toBe(true);
        }
      }
    });
  }
});

/** Tax rates: the same rule with 4 decimals and 0–100 (POST and PATCH /taxes). */
const rateFields: MoneyField[] = [
  {
    what: "POST /taxes",
    field: "rate",
    send: (co, _o, v) => raw(co, "POST", "/taxes", `{"name":"Sales tax","rate":${v}}`),
    read: (res) => res.body.tax.rate,
  },
  {
    what: "PATCH /taxes/{id}",
    field: "rate",
    send: async (co, _o, v) => {
      const tax = (await co.get("/taxes")).body.data[0] ?? (await co.post("/taxes", { name: "Sales tax", rate: 1 })).body.tax;
      return raw(co, "PATCH", `/taxes/${tax.id}`, `{"rate":${v}}`);
    },
    read: (res) => res.body.tax.rate,
  },
];
const refusedRates = ["1e-99999", "0.1e-400", "1e-5", "0.00001", "8.87501", "1.0000000000000001", "100.0001", "1e3", "1e400", "-1"];
const acceptedRates: [string, string][] = [
  ["1e1", "10"],
  ["8.875", "8.875"],
  ["8.8750", "8.875"],
  ["1.5E1", "15"],
  ["0.0001", "0.0001"],
  ["1e-4", "0.0001"],
  ["100", "100"],
  ["-0", "0"],
];

describe("tax rates are exact or refused, numbers and strings alike", () => {
  for (const f of rateFields) {
    it(`${f.what} ${f.field}`, { timeout: 60_000 }, async () => {
      const co = await newCompany();
      const order = await orderWith(co);
      if (f.what.startsWith("PATCH")) expect((await co.post("/taxes", { name: "Sales tax", rate: 1 })).status).toBe(200);
      const before = await companyRows(co.companyId);
      for (const value of refusedRates) {
        for (const sent of [value, JSON.stringify(value)]) {
          const res = await f.send(co, order, sent);
          expect({ sent, status: res.status, code: res.body?.error?.code }).toEqual({ sent, status: 400, code: "invalid_request" });
          expect(res.body.error.details, sent).toEqual([expect.objectContaining({ field: f.field })]);
        }
      }
      expect(await companyRows(co.companyId)).toEqual(before);
      for (const [value, expected] of acceptedRates) {
        for (const sent of [value, JSON.stringify(value)]) {
          const res = await f.send(co, order, sent);
          expect(res.status, `${f.field}: ${sent} → ${JSON.stringify(res.body)}`).toBe(200);
          expect(f.read(res), `${f.field}: ${sent}`).toBe(expected);
        }
      }
    });
  }
});
