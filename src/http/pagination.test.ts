import { describe, expect, it } from "vitest";
import { rowsWithinBudget, utf8Bytes } from "./pagination";

describe("utf8Bytes", () => {
  it("is the UTF-8 length of any text: ASCII, two-, three- and four-byte characters, lone surrogates", () => {
    for (const text of [
      "",
      "abc",
      "é",
      "€uro",
      "😀",
      "a😀é€",
      "\ud800",
      "x\udc00y",
      "\u07ff\u0800\uffff",
      "\ud800\ud800\udc00",
      "😀\ud83d",
      JSON.stringify({ k: '😀\n"' }),
    ]) {
      expect(utf8Bytes(text), JSON.stringify(text)).toBe(Buffer.byteLength(text, "utf8"));
    }
  });
});

describe("rowsWithinBudget", () => {
  it("keeps the longest run from the first row within the budget, and always the first row", () => {
    expect(rowsWithinBudget([], 10)).toBe(0);
    expect(rowsWithinBudget([3, 3, 3], 10)).toBe(3);
    expect(rowsWithinBudget([3, 3, 4], 10)).toBe(3);
    expect(rowsWithinBudget([3, 3, 5], 10)).toBe(2);
    expect(rowsWithinBudget([11, 1], 10)).toBe(1);
    expect(rowsWithinBudget([1, 11, 1], 10)).toBe(1);
  });
});
