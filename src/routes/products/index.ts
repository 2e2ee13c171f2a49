import { createRouter } from "../../http/openapi";
import { registerGetProduct } from "./get";
import { registerSearchProducts } from "./search";

export const productsApi = createRouter();
// /products/search first: it would otherwise match /products/{source}.
registerSearchProducts(productsApi);
registerGetProduct(productsApi);
