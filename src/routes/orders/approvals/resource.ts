import { approvalsRoutes } from ".";
import { approvalEvents } from "./events";

/**
 * Proof approvals (docs/approvals.md): an order's sub-resource whose own routes live under `/approvals`
 * (src/resources.ts lists it beside the orders). Its public page is page.tsx, mounted outside the API.
 */
export const approvalsResource = {
  prefix: "/approvals",
  tags: [{ name: "Approvals", description: "Proof approvals: a public link on which the customer approves an order's artworks" }],
  routes: () => approvalsRoutes,
  events: approvalEvents,
};
