/**
 * The members of `z` (zod-namespace.ts) that the Worker reads at run time: every `z.<name>` our code
 * uses as a value, and `ZodType`, which `extendZodWithOpenApi` patches. A name missing here is
 * `undefined` at run time, not a build error: `bundle-report` compares this list with the code.
 */
export {
  any,
  array,
  boolean,
  discriminatedUnion,
  email,
  enum,
  httpUrl,
  iso,
  json,
  literal,
  looseObject,
  NEVER,
  null,
  number,
  object,
  preprocess,
  record,
  strictObject,
  string,
  union,
  unknown,
  uuid,
  ZodType,
} from "zod/v4";
