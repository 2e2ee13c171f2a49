import { describe, expect, it } from "vitest";
import { columnFields, wireFields } from "./openapi";

describe("columnFields, the inverse of wireFields", () => {
  it("reads each named column from its snake_case wire field", () => {
    const body = { company_name: "Northside", tax_exempt_reason: "resale", phone: "555" };
    expect(columnFields(body, ["companyName", "taxExemptReason"])).toEqual({ companyName: "Northside", taxExemptReason: "resale" });
    expect(
      wireFields(columnFields(body, ["companyName", "taxExemptReason", "phone"]), ["companyName", "taxExemptReason", "phone"]),
    ).toEqual(body);
  });

  it("leaves out a field the body did not send and keeps null, which clears the column", () => {
    const body: { email?: string | null; website?: string | null } = { email: null };
    expect(columnFields(body, ["email", "website"])).toEqual({ email: null });
    expect("website" in columnFields(body, ["email", "website"])).toBe(false);
  });
});
