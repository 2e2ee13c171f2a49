import Big from "big.js";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/*
 * Client JSON kept exactly. JSON.parse turns every number into a double, so integers above 2^53 and
 * long decimals change on the way through JavaScript. Where a route keeps client JSON as sent, the
 * request's raw text goes to PostgreSQL (jsonb stores numbers as numeric, exactly) and responses embed
 * PostgreSQL's jsonb text as is. jsonb writes numbers in plain decimal (`1e3` → `1000`, `1.50` stays
 * `1.50`), so this module also refuses what numeric cannot hold and bodies that would balloon when
 * their numbers are written out. Every other route reads bodies as JavaScript values: there a number
 * JSON.parse would change (`1e-400` → 0) is refused instead (`inexactNumber`).
 */

/** A value of a request body that is refused, and why (the body guard answers 400 naming its path). */
export interface Unstorable {
  /** Keys and indexes from the body down to the offending value; empty for the body itself. */
  path: (string | number)[];
  message: string;
}

/** PostgreSQL numeric limits (jsonb numbers are numeric): digits before and after the decimal point. */
export const NUMERIC_MAX_INTEGER_DIGITS = 131072;
export const NUMERIC_MAX_SCALE = 16383;
/**
 * Longest plain-decimal text of a number written shorter (with an exponent): `1e99` (4 characters,
 * 100 written out) is accepted, `1e100` is not. Numbers sent in plain decimal are stored as sent.
 */
export const NUMBER_MAX_EXPANDED_LENGTH = 100;
/** numeric refuses an exponent beyond this magnitude even for zero. */
const NUMERIC_MAX_EXPONENT = 1073741823;

const QUOTE = 34,
  BACKSLASH = 92,
  COMMA = 44,
  OPEN_OBJECT = 123,
  CLOSE_OBJECT = 125,
  OPEN_ARRAY = 91,
  CLOSE_ARRAY = 93;
const MINUS = 45,
  PLUS = 43,
  DOT = 46,
  DIGIT_0 = 48,
  DIGIT_9 = 57,
  LOWER_E = 101,
  UPPER_E = 69;

const isNumberChar = (c: number) =>
  (c >= DIGIT_0 && c <= DIGIT_9) || c === DOT || c === LOWER_E || c === UPPER_E || c === MINUS || c === PLUS;

/** Index of the closing quote of the JSON string whose opening quote is at `start`. */
function stringEnd(text: string, start: number) {
  for (let i = start + 1; ; i++) {
    i = text.indexOf('"', i);
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i; // an even run of backslashes escapes itself, not the quote
  }
}

/**
 * Length of PostgreSQL's text for a JSON number token (plain decimal, scale kept, no sign on zero),
 * or undefined when numeric cannot hold it.
 */
export function numericTextLength(token: string): number | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!m) return undefined;
  const [, sign, int, frac = "", expText] = m;
  const exp = expText === undefined ? 0 : Number(expText);
  if (Math.abs(exp) > NUMERIC_MAX_EXPONENT) return undefined;
  const scale = Math.max(0, frac.length - exp);
  if (scale > NUMERIC_MAX_SCALE) return undefined;
  const fraction = scale ? 1 + scale : 0;
  const significant = (int + frac).replace(/^0+/, "").length;
  if (!significant) return 1 + fraction; // zero: "0" or "0.00"
  const integerDigits = significant - frac.length + exp;
  if (integerDigits > NUMERIC_MAX_INTEGER_DIGITS) return undefined;
  return sign.length + Math.max(integerDigits, 1) + fraction;
}

export interface NumberScan {
  /** How many characters PostgreSQL's plain-decimal text of all numbers adds over the text sent. */
  growth: number;
  /** The first number numeric cannot hold, or that grows past NUMBER_MAX_EXPANDED_LENGTH: its path and which. */
  offender?: { path: (string | number)[]; reason: "numeric" | "expanded" };
}

/** Told of a number token, `text.slice(start, end)`, and whether it has an exponent; answers true to stop there. */
type NumberVisitor = (text: string, start: number, end: number, exponent: boolean) => boolean;

/**
 * One pass over valid JSON text (already parsed by the body guard), showing `visit` every number
 * token; answers the path of the number where `visit` stopped, or undefined.
 * A character loop, not a regular expression: a body is up to several MiB and regex backtracking
 * over long strings overflows the stack. Containers are tracked so an offender can be named by path.
 */
function findNumber(text: string, visit: NumberVisitor): (string | number)[] | undefined {
  const containers: number[] = []; // OPEN_ARRAY or OPEN_OBJECT
  const slots: number[] = []; // array: element index; object: offset of the current key
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = stringEnd(text, i);
      if (expectKey) {
        slots[slots.length - 1] = start;
        expectKey = false;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      containers.push(c);
      slots.push(c === OPEN_ARRAY ? 0 : -1);
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      containers.pop();
      slots.pop();
      expectKey = false;
    } else if (c === COMMA) {
      if (containers[containers.length - 1] === OPEN_ARRAY) slots[slots.length - 1]++;
      else expectKey = true;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let exponent = false;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) {
        i++;
        exponent ||= text.charCodeAt(i) === LOWER_E || text.charCodeAt(i) === UPPER_E;
      }
      if (visit(text, start, i + 1, exponent)) {
        return slots.map((slot, k) =>
          containers[k] === OPEN_ARRAY ? slot : (JSON.parse(text.slice(slot, stringEnd(text, slot) + 1)) as string),
        );
      }
    }
  }
  return undefined;
}

/**
 * Checks every number of valid JSON text against numeric's limits and NUMBER_MAX_EXPANDED_LENGTH,
 * and sums how much longer the numbers get when written out in plain decimal.
 */
export function scanJsonNumbers(text: string): NumberScan {
  let growth = 0;
  let reason: "numeric" | "expanded" | undefined;
  const path = findNumber(text, (text, start, end, exponent) => {
    // Plain numbers shorter than numeric's scale limit can neither overflow nor grow.
    if (!exponent && end - start < NUMERIC_MAX_SCALE) return false;
    const token = text.slice(start, end);
    const length = numericTextLength(token);
    reason = length === undefined ? "numeric" : length > token.length && length > NUMBER_MAX_EXPANDED_LENGTH ? "expanded" : undefined;
    if (reason) return true;
    growth += Math.max(0, length! - token.length);
    return false;
  });
  return path && reason ? { growth, offender: { path, reason } } : { growth };
}

/**
 * Whether JSON.parse keeps a number token's value: the shortest decimal of the double it becomes
 * (what JavaScript, and so every schema and query, reads) is the value sent. `0.1` and `1e2` are kept;
 * `1e-400` (read as 0), `1e400` (Infinity) and `12345678901234567890` (…7000) are not.
 */
export function doubleKeepsValue(token: string): boolean {
  const n = Number(token);
  if (!Number.isFinite(n)) return false;
  const shortest = String(n);
  if (shortest === token) return true;
  try {
    return new Big(shortest).eq(new Big(token));
  } catch {
    return false; // an exponent beyond what big.js reads (±1e6): no double keeps such a number unless it is zero
  }
}

/** Digits of a plain number (no exponent) that a double always keeps: any decimal of 15 significant digits. */
const ALWAYS_KEPT_LENGTH = 15;

/**
 * The first number of valid JSON text whose value JSON.parse does not keep (`doubleKeepsValue`),
 * named by its path: for bodies read as JavaScript values, where such a number would silently
 * become another one (an amount of `1e-400` stored as 0.00).
 */
export function inexactNumber(text: string): Unstorable | undefined {
  const path = findNumber(
    text,
    (text, start, end, exponent) => !((!exponent && end - start <= ALWAYS_KEPT_LENGTH) || doubleKeepsValue(text.slice(start, end))),
  );
  return path
    ? {
        path,
        message:
          "Numbers are read as 64-bit floating point, which would not keep this one's value (more than 15 significant digits, " +
          "or too large or too small: 1e-400 would be read as 0); send it with fewer digits, or as a decimal string where the field takes one",
      }
    : undefined;
}

/**
 * What PostgreSQL would refuse, or write out far larger, among the numbers of valid JSON text whose
 * limit is `maxBytes`: a number numeric cannot hold, a number that written out in plain decimal
 * exceeds NUMBER_MAX_EXPANDED_LENGTH (`1e100000` is 8 bytes sent, 100001 returned), or numbers that
 * together would take the body over the limit.
 */
export function unstorableNumbers(text: string, maxBytes: number): Unstorable | undefined {
  const { growth, offender } = scanJsonNumbers(text);
  if (offender?.reason === "numeric") {
    return {
      path: offender.path,
      message: `Numbers must fit PostgreSQL numeric: written out, at most ${NUMERIC_MAX_INTEGER_DIGITS} digits before the decimal point and ${NUMERIC_MAX_SCALE} after`,
    };
  }
  if (offender) {
    return {
      path: offender.path,
      message: `Numbers are stored in plain decimal (1e3 as 1000); a number sent with an exponent may have at most ${NUMBER_MAX_EXPANDED_LENGTH} characters written out (send longer numbers written out)`,
    };
  }
  if (growth && new TextEncoder().encode(text).byteLength + growth > maxBytes) {
    return {
      path: [],
      message: `Numbers are stored and returned in plain decimal (1e3 as 1000); written out that way, the body would exceed ${maxBytes} bytes`,
    };
  }
  return undefined;
}

/** A JSON text written into a response verbatim (e.g. jsonb text from PostgreSQL). */
export class RawJson {
  constructor(readonly text: string) {}
}

// A NUL character marks where raw text goes: no stored string can contain one (PostgreSQL text
// refuses it), and JSON.stringify writes it escaped, so the marker cannot collide with real data.
const RAW_MARKER = /"\\u0000raw(\d+)"/g;

/** JSON.stringify, except that RawJson values are written as their text. */
export function stringifyWithRaw(value: unknown): string {
  const raws: string[] = [];
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `\u0000raw${raws.push(v.text) - 1}` : v));
  return raws.length ? json.replace(RAW_MARKER, (_, i: string) => raws[Number(i)]) : json;
}

/**
 * Like `c.json`, for bodies holding RawJson. Typed as the schema's JSON response `T`, which the
 * RawJson values stand for.
 */
export function jsonWithRaw<T, S extends ContentfulStatusCode>(c: Context, body: unknown, status: S) {
  return c.body(stringifyWithRaw(body), status, { "content-type": "application/json" }) as unknown as Response &
    TypedResponse<T, S, "json">;
}
