import { describe, expect, it } from "vitest";
import { REDACTIONS } from "../../src/platform/logger";
import { checkPattern, lintSource } from "./regex-lint";

describe("the ReDoS lint (npm run lint:regex)", () => {
  it("catches the request log's old e-mail pattern, quadratic on a long path, naming the file and line", () => {
    const source = ["const REQUEST_ID = /^[\\w.:-]{1,128}$/;", "const EMAIL_SEGMENT = /[^/]*(@|%40)[^/]*/gi;", ""].join("\n");
    const { checked, findings } = lintSource(source, "src/http/request-context.ts");
    expect(checked).toBe(2);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ file: "src/http/request-context.ts", line: 2 });
    expect(findings[0].message).toMatch(/^\/\[\^\/\]\*\(@\|%40\)\[\^\/\]\*\/gi: polynomial, degree 2 matching time/);
  });

  it("catches nested quantifiers (exponential) and patterns given to RegExp as strings, passes linear ones", () => {
    const source = [
      'const a = new RegExp("(a+)+$");',
      "const b = /@|%40/i;",
      'const c = "x".replace(/\\{([^{}]+)\\}/g, "");',
      "const d = RegExp(`\\\\s+$`);",
    ].join("\n");
    const { checked, findings } = lintSource(source, "f.ts");
    expect(checked).toBe(4);
    expect(findings.map((f) => [f.line, f.message.split(":")[0] + f.message.split(":")[1]])).toEqual([
      [1, "/(a+)+$/ exponential matching time (recheck; attack string"],
      [4, "/\\s+$/ polynomial, degree 2 matching time (recheck; attack string"],
    ]);
  });

  it("reports a pattern built at run time unless the line before says why it is safe", () => {
    const source = [
      "const x = new RegExp(parts.join('|'));",
      "// regex-lint: the union of checked literals",
      "const y = new RegExp(parts.join('|'), 'i');",
    ].join("\n");
    expect(lintSource(source, "f.ts").findings.map((f) => f.line)).toEqual([1]);
  });

  it("holds each part of the log's redaction union (built at run time) to the same check, case-insensitive as the union is", () => {
    // A backtracking engine tries a union's parts one after the other at each position: linear parts make a linear union.
    for (const [pattern] of REDACTIONS) expect(checkPattern(pattern.source, "i"), pattern.source).toBeUndefined();
  });
});
