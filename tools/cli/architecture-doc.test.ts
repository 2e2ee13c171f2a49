import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARCHITECTURE_DOC, filesOutsideLayers, loadConfig, renderDoc } from "./architecture-doc";

describe("docs/architecture.md", () => {
  it("has the layer and rule tables .dependency-cruiser.cjs gives (npm run docs:architecture writes them)", () => {
    const page = readFileSync(ARCHITECTURE_DOC, "utf8");
    expect(page).toBe(renderDoc(page));
  });

  it("places every file of src/ in a layer (or among the bundle stand-ins)", () => {
    expect(filesOutsideLayers(loadConfig().layers)).toEqual([]);
  });

  it("names every rule dependency-cruiser runs, layers included", () => {
    const { layers, forbidden } = loadConfig();
    const names = forbidden.map((r) => r.name);
    for (const layer of layers) expect(names).toContain(layer.rule);
    const page = readFileSync(ARCHITECTURE_DOC, "utf8");
    for (const name of names) expect(page).toContain(`| \`${name}\` |`);
  });
});
