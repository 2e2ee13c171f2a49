import { describe, expect, it } from "vitest";
import { sql } from "../../test/support/api";
import {
  doubleKeepsValue,
  inexactNumber,
  NUMBER_MAX_EXPANDED_LENGTH,
  numericTextLength,
  RawJson,
  scanJsonNumbers,
  stringifyWithRaw,
  unstorableNumbers,
} from "./exact-json";

/** PostgreSQL's own answer: the length of jsonb's text for the number, or undefined when it refuses it. */
async function postgresLength(token: string) {
  try {
    const [row] = await sql<{ n: number }>("select length($1::jsonb::text) as n", [token]);
    return row.n;
  } catch (e) {
    if ((e as { code?: string }).code === "22003") return undefined; // numeric_value_out_of_range
    throw e;
  }
}

describe("numericTextLength", () => {
  const tokens = [
    "0",
    "-0",
    "0.0",
    "-0.000",
    "7",
    "-7",
    "12.50",
    "0.05",
    "-0.05",
    "12345678901234567890",
    "0.1000000000000000055511151231257827",
    "1e2",
    "1E+2",
    "1e-2",
    "-1.5e-7",
    "1.50e1",
    "1.5e3",
    "12.345e-1",
    "0.001e3",
    "0.001e2",
    "100e-2",
    "0e5",
    "0e-5",
    "0.00e-3",
    "1e21",
    "1e308",
    "5e-324",
    "1e400",
    "1e-400",
    "2.5e+0",
    "123.456e-789",
    // numeric's edges: 131072 digits before the decimal point, 16383 after
    "1e131071",
    "9.99e131071",
    "1e131072",
    "10e131071",
    "0.1e131072",
    "0.1e131073",
    "1e-16383",
    "1e-16384",
    "1.5e-16382",
    "1.5e-16383",
    "0e-16383",
    "0e-16384",
    "0.0e-16383",
    "0e1073741823",
    "0e1073741824",
    "0e-1073741824",
    "1e99999999999999999999",
    `0.${"0".repeat(16382)}1`,
    `0.${"0".repeat(16383)}1`,
    `1${"0".repeat(131071)}`,
    `1${"0".repeat(131072)}`,
  ];

  it("matches PostgreSQL for every token: the length of jsonb's text, undefined exactly when numeric overflows", async () => {
    const ours = tokens.map(numericTextLength);
    const theirs = await Promise.all(tokens.map(postgresLength));
    // Compare per token, so a mismatch names it.
    expect(Object.fromEntries(tokens.map((t, i) => [t.length > 40 ? `${t.slice(0, 20)}…(${t.length})` : t, ours[i]]))).toStrictEqual(
      Object.fromEntries(tokens.map((t, i) => [t.length > 40 ? `${t.slice(0, 20)}…(${t.length})` : t, theirs[i]])),
    );
    // The list reaches both sides of every limit.
    expect(theirs.filter((n) => n === undefined).length).toBeGreaterThanOrEqual(8);
  });
});

describe("scanJsonNumbers", () => {
  it("ignores digits inside strings and keys (escaped quotes and backslashes included) and sums the growth", () => {
    const text = JSON.stringify({ "1e999999": ['say "1e999999"', "\\", "1e999999\\"], n: 1 }).replace(/1}$/, "1e5}");
    expect(text).toContain('"n":1e5');
    expect(scanJsonNumbers(text)).toEqual({ growth: "100000".length - "1e5".length });
  });

  it("names the path of the first number numeric cannot hold", () => {
    const text = `{"messages":[{"a":[1,{"b":2}]},{"x\\"y":[0,[1e2,1e131072]]}],"labels":[1e-99999]}`;
    expect(scanJsonNumbers(text).offender).toEqual({ path: ["messages", 1, 'x"y', 1, 1], reason: "numeric" });
    expect(scanJsonNumbers(`[{}, "s", {"k": [], "m": 1e-20000}]`).offender).toEqual({ path: [2, "m"], reason: "numeric" });
    expect(scanJsonNumbers(`1e131072`).offender).toEqual({ path: [], reason: "numeric" });
  });

  it(`limits a number sent with an exponent to ${NUMBER_MAX_EXPANDED_LENGTH} characters written out; plain numbers stay as sent`, () => {
    expect(scanJsonNumbers(`[1e${NUMBER_MAX_EXPANDED_LENGTH - 1}]`)).toEqual({ growth: NUMBER_MAX_EXPANDED_LENGTH - 4 });
    expect(scanJsonNumbers(`[-1e${NUMBER_MAX_EXPANDED_LENGTH - 2}]`).offender).toBeUndefined();
    expect(scanJsonNumbers(`{"a":[0,1e${NUMBER_MAX_EXPANDED_LENGTH}]}`).offender).toEqual({ path: ["a", 1], reason: "expanded" });
    expect(scanJsonNumbers(`[1e-${NUMBER_MAX_EXPANDED_LENGTH - 1}]`).offender).toEqual({ path: [0], reason: "expanded" });
    expect(scanJsonNumbers(`[1${"0".repeat(5000)}, 0.${"0".repeat(5000)}1]`)).toEqual({ growth: 0 });
    // 80 × `1e99999` (7 bytes each) would store 8 MB: refused at the first.
    expect(unstorableNumbers(`[${Array(80).fill("1e99999").join(",")}]`, 8 * 1024 * 1024)).toMatchObject({ path: [0] });
  });

  it("refuses numbers that would take the body over the limit when written out", () => {
    const text = `{"messages":[${Array(10).fill("1e99").join(",")}]}`;
    const bytes = new TextEncoder().encode(text).byteLength;
    const growth = 10 * (100 - 4);
    expect(scanJsonNumbers(text).growth).toBe(growth);
    expect(unstorableNumbers(text, bytes + growth)).toBeUndefined();
    expect(unstorableNumbers(text, bytes + growth - 1)).toMatchObject({ path: [] });
  });
});

describe("numbers JSON.parse would change", () => {
  it.each([
    "0",
    "-0",
    "0.1",
    "1.0",
    "12.500",
    "1e2",
    "1.5E1",
    "0.30000000000000004",
    "123456789012345",
    "9007199254740992",
    "1e21",
    "5e-324",
  ])("%s keeps its value as a double", (token) => expect(doubleKeepsValue(token)).toBe(true));
  it.each(["1e-99999", "0.1e-400", "1e400", "-1e400", "1.0000000000000001", "12345678901234567890", "9007199254740993", "1e-9999999"])(
    "%s does not",
    (token) => expect(doubleKeepsValue(token)).toBe(false),
  );
  it("names the path of the first such number, past digits in strings and keys", () => {
    expect(inexactNumber('{"a": "1e-400", "1e-400": [1, 2, {"b": 0.1, "c": 1e-400}]}')).toMatchObject({ path: ["1e-400", 2, "c"] });
    expect(inexactNumber('{"a": [1.5, 100, 1e2, -0.25, 123456789012345]}')).toBeUndefined();
  });
});

describe("stringifyWithRaw", () => {
  it("writes RawJson text verbatim and leaves look-alike strings alone", () => {
    const value = {
      a: new RawJson('[12345678901234567890, {"x": 0.1000000000000000055511151231257827}]'),
      b: ["\\u0000raw0", '"\\u0000raw0"', "plain"],
      c: new RawJson("[]"),
    };
    const text = stringifyWithRaw(value);
    expect(text).toBe(`{"a":[12345678901234567890, {"x": 0.1000000000000000055511151231257827}],"b":${JSON.stringify(value.b)},"c":[]}`);
    expect(stringifyWithRaw({ plain: [1, "two"] })).toBe(JSON.stringify({ plain: [1, "two"] }));
  });
});
