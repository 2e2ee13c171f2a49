import { describe, expect, it } from "vitest";
import { expectError, newCompany } from "../../../test/support/api";

describe("GET /clients", () => {
  it("pages with defaults 1/25, stable id order, and a total over all pages", async () => {
    const a = await newCompany();
    await a.load({ clients: Array.from({ length: 30 }, (_, i) => ({ ref: `c${i}`, company_name: `Client ${i}` })) });
    const first = await a.get("/clients");
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, per_page: 25, total: 30, next_cursor: expect.any(String) });
    expect(first.body.data).toHaveLength(25);
    const ids = first.body.data.map((c: any) => c.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));

    const second = await a.get("/clients?page=2&per_page=25");
    expect(second.body.data.map((c: any) => c.company_name)).toEqual(["Client 25", "Client 26", "Client 27", "Client 28", "Client 29"]);
    const beyond = await a.get("/clients?page=9");
    expect(beyond.body).toEqual({ data: [], pagination: { page: 9, per_page: 25, total: 30, next_cursor: null } });
    expect((await a.get("/clients?per_page=100")).body.data).toHaveLength(30);
  });

  it.each([
    ["per_page=0", "per_page"],
    ["per_page=101", "per_page"],
    ["per_page=abc", "per_page"],
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=1.5", "page"],
  ])("rejects %s with 400 naming the parameter", async (query, field) => {
    const a = await newCompany();
    const err = expectError(await a.get(`/clients?${query}`), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field })]);
  });

  it("searches company, first, last and full name, and email, case-insensitively", async () => {
    const a = await newCompany();
    await a.load({
      clients: [
        { ref: "x1", company_name: "Northside Print Co.", first_name: "Maya", last_name: "Lopez", email: "maya@northside.example" },
        { ref: "x2", company_name: "Riverbend Athletics", first_name: "Tom", last_name: "Becker", email: "TBECKER@riverbend.example" },
        { ref: "x3", company_name: "Sunrise Bakery" },
      ],
    });
    const names = async (q: string) => (await a.get(`/clients?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.company_name);
    expect(await names("NORTHSIDE")).toEqual(["Northside Print Co."]);
    expect(await names("maya")).toEqual(["Northside Print Co."]);
    expect(await names("becker")).toEqual(["Riverbend Athletics"]);
    expect(await names("tom beck")).toEqual(["Riverbend Athletics"]);
    expect(await names("tbecker@RIVER")).toEqual(["Riverbend Athletics"]);
    expect(await names("bakery")).toEqual(["Sunrise Bakery"]);
    expect(await names("zzz")).toEqual([]);
    expect((await a.get("/clients?q=example")).body.pagination.total).toBe(2);
  });

  it("treats %, _ and \\ in q literally", async () => {
    const a = await newCompany();
    await a.load({
      clients: [
        { ref: "p", company_name: "100% Cotton Club" },
        { ref: "u", company_name: "Under_score Inc" },
        { ref: "b", company_name: "Back\\slash LLC" },
        { ref: "n", company_name: "Plain Name" },
      ],
    });
    const names = async (q: string) => (await a.get(`/clients?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.company_name);
    expect(await names("00%")).toEqual(["100% Cotton Club"]);
    expect(await names("r_s")).toEqual(["Under_score Inc"]);
    expect(await names("k\\s")).toEqual(["Back\\slash LLC"]);
    expect(await names("0% c")).toEqual(["100% Cotton Club"]);
  });

  it("matches phone numbers ignoring punctuation and spaces", async () => {
    const a = await newCompany();
    await a.load({
      clients: [
        { ref: "p1", company_name: "Dotted", phone: "555.010.4471" },
        { ref: "p2", company_name: "Formatted", phone: "+1 (555) 010-2030" },
        { ref: "p3", company_name: "No phone" },
      ],
    });
    const names = async (q: string) =>
      (await a.get(`/clients?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.company_name).sort();
    expect(await names("5550104471")).toEqual(["Dotted"]);
    expect(await names("(555) 010-2030")).toEqual(["Formatted"]);
    expect(await names("010 20")).toEqual(["Formatted"]);
    expect(await names("555-010")).toEqual(["Dotted", "Formatted"]);
  });

  it.each([
    ["p", ["Wu Print", "Ñé Shop"]],
    ["wu", ["Wu Print"]],
    [" wu p ", ["Wu Print"]],
    ["ñé", ["Ñé Shop"]],
    ["x", []],
  ])("answers q=%j (any length after trimming) with its matches, never a 400; blank q lists all", async (q, names) => {
    const a = await newCompany();
    await a.load({
      clients: [
        { ref: "w", company_name: "Wu Print", first_name: "Ana" },
        { ref: "n", company_name: "Ñé Shop" },
      ],
    });
    const res = await a.get(`/clients?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.company_name)).toEqual(names);
    expect(res.body.pagination.total).toBe(names.length);
    expect((await a.get("/clients?q=%20%20")).body.pagination.total).toBe(2);
  });

  it("never lists soft-deleted clients", async () => {
    const a = await newCompany();
    const ids = await a.load({
      clients: [
        { ref: "keep", company_name: "Keep Me" },
        { ref: "gone", company_name: "Gone Soon" },
      ],
    });
    expect((await a.patch(`/clients/${ids.gone}`, { deleted: true })).status).toBe(200);
    const res = await a.get("/clients");
    expect(res.body.data.map((c: any) => c.id)).toEqual([ids.keep]);
    expect(res.body.pagination.total).toBe(1);
    expect((await a.get("/clients?q=gone")).body.data).toEqual([]);
  });

  it("lists only the caller's company", async () => {
    const a = await newCompany();
    const b = await newCompany();
    await a.load({ clients: [{ ref: "a1", company_name: "Shared Name Ltd", email: "same@example.com" }] });
    await b.load({ clients: [{ ref: "b1", company_name: "Other Shop" }] });
    const listB = await b.get("/clients");
    expect(listB.body.data.map((c: any) => c.company_name)).toEqual(["Other Shop"]);
    expect((await b.get("/clients?q=Shared")).body).toEqual({
      data: [],
      pagination: { page: 1, per_page: 25, total: 0, next_cursor: null },
    });
    expect((await b.get("/clients?q=same@example.com")).body.data).toEqual([]);
  });
});
