/**
 * Stand-in for zod's JSON Schema processors (wrangler.toml `[alias]`; see zod-unbundled.ts): every
 * schema class wires one in for `toJSONSchema()`, which nothing in the Worker calls. The one function
 * in use, `aggregateChecks` (behind `schema.format` / `minLength` / `maxLength`, which
 * @asteasolutions/zod-to-openapi reads), comes from zod's own module, reached by a path the alias does
 * not match, so esbuild keeps only it.
 */
import { unbundled } from "./zod-unbundled";

export { aggregateChecks } from "../../node_modules/zod/v4/core/json-schema-processors.js";

export const toJSONSchema = unbundled("z.toJSONSchema");
const processor = unbundled("a zod JSON Schema processor");
export const stringProcessor = processor;
export const numberProcessor = processor;
export const booleanProcessor = processor;
export const bigintProcessor = processor;
export const symbolProcessor = processor;
export const nullProcessor = processor;
export const undefinedProcessor = processor;
export const voidProcessor = processor;
export const neverProcessor = processor;
export const anyProcessor = processor;
export const unknownProcessor = processor;
export const dateProcessor = processor;
export const enumProcessor = processor;
export const literalProcessor = processor;
export const nanProcessor = processor;
export const templateLiteralProcessor = processor;
export const fileProcessor = processor;
export const successProcessor = processor;
export const customProcessor = processor;
export const functionProcessor = processor;
export const transformProcessor = processor;
export const mapProcessor = processor;
export const setProcessor = processor;
export const arrayProcessor = processor;
export const objectProcessor = processor;
export const unionProcessor = processor;
export const intersectionProcessor = processor;
export const tupleProcessor = processor;
export const recordProcessor = processor;
export const nullableProcessor = processor;
export const nonoptionalProcessor = processor;
export const defaultProcessor = processor;
export const prefaultProcessor = processor;
export const catchProcessor = processor;
export const pipeProcessor = processor;
export const readonlyProcessor = processor;
export const promiseProcessor = processor;
export const optionalProcessor = processor;
export const lazyProcessor = processor;
export const allProcessors = {};
