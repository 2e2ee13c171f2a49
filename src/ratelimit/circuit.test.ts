import { describe, expect, it } from "vitest";
import type { Logger } from "../platform/logger";
import { CIRCUIT_OPEN_AFTER, Circuit } from "./circuit";

const logger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

describe("Circuit: waiters", () => {
  it("releases the waiters when it opens, and drops one whose request ended once its deadline passed", () => {
    const circuit = new Circuit();
    const released: string[] = [];
    const now = Date.now();
    // A waiter whose request ended: it never removes itself, and its deadline has passed.
    circuit.onOpen(() => released.push("ended"), now - 1);
    const remove = circuit.onOpen(() => released.push("removed"), now + 60_000);
    circuit.onOpen(() => released.push("waiting"), now + 60_000);
    expect(circuit.waiting).toBe(2);
    remove();
    for (let i = 0; i < CIRCUIT_OPEN_AFTER; i++) circuit.failed(logger, "test");
    expect(released).toEqual(["waiting"]);
    expect(circuit.waiting).toBe(0);
  });
});
