/**
 * The layer and rule tables of docs/architecture.md, written from .dependency-cruiser.cjs (its LAYERS and
 * its rules) and the files under src/, so the page says what the lint enforces and what is there.
 * `npm run docs:architecture` rewrites them in place; tools/cli/architecture-doc.test.ts fails when the
 * page is not what this writes.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
export const ARCHITECTURE_DOC = path.join(root, "docs/architecture.md");

interface Layer {
  rule: string;
  paths: string[];
  holds: string;
}
interface Rule {
  name: string;
  comment: string;
}
interface Config {
  layers: Layer[];
  forbidden: Rule[];
}

export const loadConfig = (): Config => createRequire(import.meta.url)(path.join(root, ".dependency-cruiser.cjs"));

/** Source files and folders directly in `folder` (relative to the repository), tests left out. */
function entries(folder: string): string[] {
  return readdirSync(path.join(root, folder))
    .filter((name) => !name.endsWith(".test.ts"))
    .map((name) => (statSync(path.join(root, folder, name)).isDirectory() ? `${name}/` : name))
    .sort();
}

const code = (names: string[]) => names.map((n) => `\`${n}\``).join(", ");

/** What a layer's folder holds, by name: its files and sub-folders (for routes/, its resources). */
function contents(folder: string): string {
  const names = entries(folder);
  return folder === "src/routes/" ? `resources: ${code(names)}` : code(names);
}

export function layerTable(layers: Layer[]): string {
  const rows = layers.map((layer) => {
    const folders = layer.paths.filter((p) => p.endsWith("/"));
    const listed = folders.length === 1 ? [contents(folders[0])] : folders.map((f) => `\`${f.replace(/^src\//, "")}\`: ${contents(f)}`);
    const holds = [layer.holds, ...listed].join(". ");
    return `| ${code(layer.paths)} | ${holds} |`;
  });
  return ["| Layer (bottom up) | Holds |", "|---|---|", ...rows].join("\n");
}

export function ruleTable(rules: Rule[]): string {
  return ["| Rule | Meaning |", "|---|---|", ...rules.map((r) => `| \`${r.name}\` | ${r.comment} |`)].join("\n");
}

/** Every file under src/ that no layer holds (bundle stand-ins are apart from the layers on purpose). */
export function filesOutsideLayers(layers: Layer[]): string[] {
  const paths = [...layers.flatMap((l) => l.paths), "src/bundle-stand-ins/"];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = `${dir}${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(`${rel}/`);
      else if (!paths.some((p) => (p.endsWith("/") ? rel.startsWith(p) : rel === p))) out.push(rel);
    }
  };
  walk("src/");
  return out;
}

const marker = (name: string) =>
  new RegExp(`(<!-- ${name}: generated from \\.dependency-cruiser\\.cjs by npm run docs:architecture -->\\n)[\\s\\S]*?(<!-- /${name} -->)`);

/** The page with both tables as the config and the tree say. */
export function renderDoc(page: string, config: Config = loadConfig()): string {
  const blocks = { layers: layerTable(config.layers), rules: ruleTable(config.forbidden) };
  let out = page;
  for (const [name, body] of Object.entries(blocks)) {
    const re = marker(name);
    if (!re.test(out)) throw new Error(`docs/architecture.md has no ${name} block`);
    out = out.replace(re, (_, open: string, close: string) => `${open}${body}\n${close}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = readFileSync(ARCHITECTURE_DOC, "utf8");
  const outside = filesOutsideLayers(loadConfig().layers);
  if (outside.length) throw new Error(`in no layer of .dependency-cruiser.cjs: ${outside.join(", ")}`);
  writeFileSync(ARCHITECTURE_DOC, renderDoc(page));
}
