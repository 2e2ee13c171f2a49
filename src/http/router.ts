import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { validationHook } from "./errors";

/**
 * Every router is built here so all share the validation hook (400 with field details). Apart from
 * openapi.ts (which re-exports it for the routes), so that what the app needs at start-up does not
 * build the route helpers' shared schemas (pagination, idempotency): those load with the first resource.
 */
export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
export type Router = ReturnType<typeof createRouter>;
