import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newCompany } from "../../test/support/api";
import { mcpClient } from "../../test/support/mcp";
import { tokenOperations } from "../../test/support/operations";
import { toolName } from "./catalog";

const doc = readFileSync(path.join(import.meta.dirname, "../../docs/mcp.md"), "utf8");

describe("docs/mcp.md", () => {
  it("lists every tool the Worker lists, with its operation, scope and summary from the OpenAPI document", async () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| `([A-Z]+) ([^`]+)` \| (read|write) \| (.+) \|$/gm)].map(
      ([, name, method, p, scope, summary]) => ({
        name,
        operation: `${method} ${p}`,
        scope,
        summary,
      }),
    );
    const operations = (await tokenOperations()).filter(({ op }) => !op.tags.includes("Webhooks"));
    expect(rows).toEqual(
      operations.map(({ path: p, method, op }) => ({
        name: toolName(op.operationId),
        operation: `${method.toUpperCase()} ${p}`,
        scope: op["x-required-scope"],
        summary: op.summary,
      })),
    );
    const co = await newCompany();
    const { tools } = await (await mcpClient(co.token)).listTools();
    expect(tools.map((t) => [t.name, t.title])).toEqual(rows.map((r) => [r.name, r.summary]));
  });
});
