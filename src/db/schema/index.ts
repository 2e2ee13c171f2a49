export * from "./companies";
export * from "./clients";
export * from "./orders";
export * from "./accounting";
export * from "./products";
export * from "./mail";
