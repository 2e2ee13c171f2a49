import { z } from "@hono/zod-openapi";
import { TOKEN_SCOPES } from "../../db/schema/companies";
import { schemaOnce, timestamp } from "../../http/openapi";

export const meSchema = schemaOnce(() =>
  z
    .object({
      company: z
        .object({ id: z.number().int().openapi({ example: 12 }), name: z.string().openapi({ example: "Northside Screen Printing" }) })
        .openapi({ description: "The company the token belongs to: every request with it reads and writes this company's data only" }),
      token: z
        .object({
          id: z.number().int().openapi({ example: 31 }),
          scope: z.enum(TOKEN_SCOPES).openapi({ description: "`write`: every operation; `read`: GET operations only" }),
          created_at: timestamp(),
        })
        .openapi({ description: "The API token of this request (never the token itself)" }),
      rate_limit: z
        .object({
          limit: z.number().int().openapi({ example: 300 }),
          window_seconds: z.number().int().openapi({ example: 60 }),
        })
        .openapi({ description: "At most `limit` requests per `window_seconds`-second sliding window with this token" }),
    })
    .openapi("Me"),
);
