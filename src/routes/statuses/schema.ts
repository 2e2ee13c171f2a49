import { z } from "@hono/zod-openapi";
import type { orderStatuses } from "../../db/schema/orders";
import { ApiError } from "../../http/errors";
import { schemaOnce, text, timestamp, wireFields } from "../../http/openapi";

/** A company holds at most this many statuses (the list answers them all, unpaged). */
export const MAX_STATUSES = 200;
/** The largest position a request may name; anything past the last status places it last. */
const MAX_POSITION = 1_000_000;

/** The status's writable fields; strict bodies, so unknown fields are rejected by name. */
const fields = schemaOnce(() => ({
  name: text(100)
    .min(1, "name must not be blank")
    .openapi({ description: "1–100 characters, unique in your company ignoring case", example: "In production" }),
  color: z
    .string()
    .max(7)
    .regex(/^#[0-9A-Fa-f]{6}$/, "Must be a color as #RRGGBB")
    .nullable()
    .openapi({ description: "`#RRGGBB` (hexadecimal), or null for none", example: "#1E88E5" }),
  position: z.number().int().min(0).max(MAX_POSITION).openapi({
    description:
      "Where the status goes, from 0 (first); the statuses from there on move one down. A position past the last status places it last",
    example: 2,
  }),
}));

export const statusCreateSchema = schemaOnce(() => {
  const { name, color, position } = fields();
  return z
    .strictObject({
      name,
      color: color.optional(),
      position: position.optional().openapi({ description: "Where the status goes, from 0 (first); without it, last" }),
    })
    .openapi("StatusCreate");
});
export type StatusCreate = z.infer<ReturnType<typeof statusCreateSchema>>;

export const statusPatchSchema = schemaOnce(() => {
  const { name, color, position } = fields();
  return z
    .strictObject({
      name: name.optional(),
      color: color.optional(),
      position: position.optional(),
    })
    .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
    .openapi("StatusPatch");
});
export type StatusPatch = z.infer<ReturnType<typeof statusPatchSchema>>;

export const statusSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 4 }),
      name: z.string().openapi({ example: "In production" }),
      color: z.string().nullable().openapi({ description: "`#RRGGBB`, or null", example: "#1E88E5" }),
      position: z.number().int().openapi({ description: "0 … n−1 over the company's statuses: no gaps, no two alike", example: 2 }),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Status"),
);

export const statusEnvelopeSchema = schemaOnce(() => z.object({ status: statusSchema() }).openapi("StatusEnvelope"));

export const serializeStatus = (row: typeof orderStatuses.$inferSelect): z.infer<ReturnType<typeof statusSchema>> =>
  wireFields(row, ["id", "name", "color", "position", "createdAt", "updatedAt"]);

/** 409: another live status of the company has this name (ignoring case). */
export const nameConflict = (name: string, statusId: number) =>
  new ApiError(409, "conflict", `A status named "${name}" already exists (names are unique ignoring case)`, {
    field: "name",
    status_id: statusId,
  });

/** 409: the company has as many statuses as it may. */
export const tooManyStatuses = () =>
  new ApiError(409, "conflict", `A company has at most ${MAX_STATUSES} statuses`, { max_statuses: MAX_STATUSES });
