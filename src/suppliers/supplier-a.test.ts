import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { SupplierError } from "./http";
import { buildEnvelope, extractStyleToken, parseProductInfoResponse, SANMAR_IMPL_NS, SOAP_ENVELOPE_NS } from "./supplier-a";

describe("supplier_a style token", () => {
  it.each([
    ["PC54", "PC54"],
    ["G500", "G500"],
    ["5000", "5000"],
    ["ST350", "ST350"],
    ["pc54 navy tees", "PC54"],
    ["gildan g500 white", "G500"],
    ["Gildan 5000 heavy cotton", "5000"],
    ["st350, royal", "ST350"],
    ["(K420)", "K420"],
    ["polo PC54LS", "PC54LS"],
    ["navy tees", null],
    ["A1", null], // one digit
    ["ABCDE123", null], // five letters
    ["123456", null], // six digits
    ["PC54-NAVY", null], // one token, not a style
    ["", null],
  ])("%j → %j", (q, token) => {
    expect(extractStyleToken(q)).toBe(token);
  });
});

describe("supplier_a SOAP envelope", () => {
  const config = {
    provider: "supplier_a" as const,
    baseUrl: "https://ws.example/SanMarWebService/SanMarProductInfoServicePort",
    credentials: { customer_number: "12345", username: "shop", password: `p&ss<w>"rd'` },
  };

  it("is a SOAP 1.1 envelope with the operation in the service namespace and unqualified, escaped arguments", () => {
    const xml = buildEnvelope({ style: "PC54", color: "Navy" }, config);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", parseTagValue: false }).parse(xml);
    const env = doc["soapenv:Envelope"];
    expect(env["@_xmlns:soapenv"]).toBe(SOAP_ENVELOPE_NS);
    expect(env["@_xmlns:impl"]).toBe(SANMAR_IMPL_NS);
    const op = env["soapenv:Body"]["impl:getProductInfoByStyleColorSize"];
    expect(op.arg0).toEqual({ color: "Navy", style: "PC54" });
    expect(op.arg1).toEqual({ sanMarCustomerNumber: "12345", sanMarUserName: "shop", sanMarUserPassword: `p&ss<w>"rd'` });
    expect(xml).not.toContain("<w>");
  });

  it("omits absent filters and keeps the arguments in schema order", () => {
    const xml = buildEnvelope({ style: "PC54", size: "2XL" }, config);
    expect(xml).toContain("<arg0><size>2XL</size><style>PC54</style></arg0>");
    expect(xml).not.toContain("<color");
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  });
});

describe("supplier_a answer parsing", () => {
  const envelope = (inner: string) =>
    `<S:Envelope xmlns:S="${SOAP_ENVELOPE_NS}"><S:Body><ns2:getProductInfoByStyleColorSizeResponse xmlns:ns2="${SANMAR_IMPL_NS}"><return>${inner}</return></ns2:getProductInfoByStyleColorSizeResponse></S:Body></S:Envelope>`;
  const ok = (text: string, status = 200) => ({ status, contentType: "text/xml", text });
  const failure = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e instanceof SupplierError ? e.reason : `other: ${e}`;
    }
    return "no error";
  };

  it("reads a single listResponse as one product and an empty element as no images", () => {
    const products = parseProductInfoResponse(
      ok(
        envelope(
          "<errorOccured>false</errorOccured><listResponse><productBasicInfo><style>K420</style><size>M</size></productBasicInfo><productImageInfo/><productPriceInfo><piecePrice>21.5</piecePrice></productPriceInfo></listResponse><message/>",
        ),
      ),
    );
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({ style: "K420", size: "M", piece_price: "21.50", image_url: null, color: null });
  });

  it('treats "Invalid style" as empty and classifies other in-band errors', () => {
    expect(
      parseProductInfoResponse(ok(envelope("<errorOccured>true</errorOccured><message>ERROR: Invalid style : XX1</message>"))),
    ).toEqual([]);
    expect(
      failure(() =>
        parseProductInfoResponse(ok(envelope("<errorOccured>true</errorOccured><message>User authentication failed</message>"))),
      ),
    ).toBe("auth_failed");
    expect(failure(() => parseProductInfoResponse(ok(envelope("<errorOccured>true</errorOccured><message>System busy</message>"))))).toBe(
      "upstream_error",
    );
    expect(parseProductInfoResponse(ok(envelope("<errorOccured>false</errorOccured><message/>")))).toEqual([]);
  });

  it("reads references, CDATA and prefixed elements as text; unknown entities stay as written", () => {
    const products = parseProductInfoResponse(
      ok(
        envelope(
          "<errorOccured>false</errorOccured><listResponse><x:productBasicInfo xmlns:x='urn:x'><x:style> K420 </x:style>" +
            "<productTitle>Tee &amp; Polo &#233;&#x2013;&nbsp;</productTitle><productDescription><![CDATA[<b>5.4-oz</b>]]></productDescription>" +
            "<!-- a comment --></x:productBasicInfo></listResponse>",
        ),
      ),
    );
    expect(products[0]).toMatchObject({ style: "K420", title: "Tee & Polo é–&nbsp;", description: "<b>5.4-oz</b>" });
  });

  it("rejects a repeated single-valued element", () => {
    const repeated = "<productBasicInfo><style>A</style><style>B</style></productBasicInfo>";
    expect(
      failure(() => parseProductInfoResponse(ok(envelope(`<errorOccured>false</errorOccured><listResponse>${repeated}</listResponse>`)))),
    ).toBe("bad_response");
  });

  it("rejects faults, DTDs, truncated and foreign documents", () => {
    const fault = `<S:Envelope xmlns:S="${SOAP_ENVELOPE_NS}"><S:Body><S:Fault><faultcode>S:Server</faultcode><faultstring>boom</faultstring></S:Fault></S:Body></S:Envelope>`;
    expect(failure(() => parseProductInfoResponse(ok(fault, 500)))).toBe("upstream_fault");
    expect(failure(() => parseProductInfoResponse(ok(fault, 200)))).toBe("upstream_fault");
    expect(
      failure(() => parseProductInfoResponse(ok(`<!DOCTYPE x [<!ENTITY a "b">]>${envelope("<errorOccured>false</errorOccured>")}`))),
    ).toBe("bad_response");
    expect(failure(() => parseProductInfoResponse(ok(envelope("<errorOccured>false</errorOccured>").slice(0, 150))))).toBe("bad_response");
    expect(failure(() => parseProductInfoResponse(ok("<html><body>maintenance</body></html>")))).toBe("bad_response");
    expect(failure(() => parseProductInfoResponse(ok(envelope("<errorOccured>maybe</errorOccured>"))))).toBe("bad_response");
    expect(
      failure(() =>
        parseProductInfoResponse(
          ok(
            envelope("<errorOccured>false</errorOccured><listResponse><productBasicInfo><size>M</size></productBasicInfo></listResponse>"),
          ),
        ),
      ),
    ).toBe("bad_response");
    expect(failure(() => parseProductInfoResponse(ok("<html>oops</html>", 500)))).toBe("upstream_status");
    expect(failure(() => parseProductInfoResponse(ok("", 503)))).toBe("upstream_status");
    expect(failure(() => parseProductInfoResponse(ok("", 401)))).toBe("auth_failed");
  });
});
