/**
 * `@asteasolutions/zod-to-openapi` as the Worker bundle sees it (tools/cli/worker-build.ts ALIASES; only
 * `@hono/zod-openapi` imports it). The Worker serves the OpenAPI document built at build time
 * (src/openapi-document.ts, with the real package), so no isolate reads a schema's OpenAPI metadata or
 * a router's registry: `.openapi()` returns the schema itself (the package returns a new instance with
 * the same definition and records the metadata, which validates alike), the registry keeps nothing,
 * and generating a document throws. docs/bundle.md says what it saves, measured.
 */
const noDocument = () => new Error("the OpenAPI document is built at build time (src/openapi-document.ts), not in the Worker");

/** Gives zod's schemas `.openapi()`, which the route contracts call; it records nothing here. */
export function extendZodWithOpenApi(zod: { ZodType: { prototype: object } }): void {
  const prototype = zod.ZodType.prototype as { openapi?: unknown };
  if (prototype.openapi !== undefined) return;
  prototype.openapi = function openapi(this: unknown) {
    return this;
  };
}

/** What @hono/zod-openapi keeps each route's contract in, for a document: nothing, in the Worker. */
export class OpenAPIRegistry {
  readonly definitions: never[] = [];
  register<T>(_refId: string, schema: T): T {
    return schema;
  }
  registerParameter<T>(_refId: string, schema: T): T {
    return schema;
  }
  registerPath(): void {}
  registerWebhook(): void {}
  registerComponent(): never {
    throw noDocument();
  }
}

export class OpenApiGeneratorV3 {
  constructor() {
    throw noDocument();
  }
}

export class OpenApiGeneratorV31 {
  constructor() {
    throw noDocument();
  }
}

/** Read by @hono/zod-openapi only for registry definitions, of which there are none. */
export const getOpenApiMetadata = (): Record<string, never> => ({});
