import { describe, expect, it } from "vitest";
import { priceFrom as money, priceRange } from "./money";

describe("money from third-party prices", () => {
  it.each([
    [4.605, "4.61"], // binary 4.60499…; the decimal text rounds half up
    [2.675, "2.68"],
    ["11.3", "11.30"],
    [" 7 ", "7.00"],
    [0, "0.00"],
    ["0.004", "0.00"],
    ["19.995", "20.00"],
    [123456789012.5, "123456789012.50"],
  ])("%j → %j", (value, expected) => {
    expect(money(value)).toBe(expected);
  });

  it.each([-1, "-1", "abc", "", null, undefined, 1e21, Number.NaN, Infinity, "1e3", {}])("%j is not a price", (value) => {
    expect(money(value)).toBeNull();
  });

  it("ranges over prices exactly, ignoring missing ones", () => {
    expect(priceRange(["4.18", null, "6.48", "4.17"])).toEqual({ min: "4.17", max: "6.48" });
    expect(priceRange([null])).toBeNull();
  });
});
