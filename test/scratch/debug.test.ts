import { it } from "vitest";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { call, newCompany } from "../support/api";
import { populated } from "../support/operations";
it("debug", async () => {
  const a = await newCompany();
  await populated(a);
  const doc = (await call("GET", "/openapi.json")).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  const schema = doc.paths["/events"].get.responses["200"].content["application/json"].schema;
  const v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
  const res = await a.get("/events");
  v(res.body);
  console.log(JSON.stringify(v.errors?.slice(0, 8), null, 1));
  console.log(JSON.stringify(doc.components.schemas.Event).slice(0, 1500));
});
