export * from "./accounting";
export * from "./clients";
export * from "./companies";
export * from "./counts";
export * from "./idempotency";
export * from "./mail";
export * from "./orders";
export * from "./products";
