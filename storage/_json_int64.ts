/**
 * JSON for the Iceberg catalog, whose snapshot ids and sequence numbers are
 * 64-bit integers: `JSON.parse` would round them (3497810964824022504 becomes
 * ...500), and `JSON.stringify` cannot write a `bigint`. Integers beyond
 * 2^53 are read as `bigint`, and `bigint` values are written as bare JSON
 * integers, so ids read from one answer can be sent back in a commit.
 */

// An escaped U+0000 cannot start a catalog string in practice; it marks a moved integer.
const MARK = "\u0000int64:";
const MARKED = /"\\u0000int64:(-?\d+)"/g;

/**
 * Parses JSON text, turning integer literals beyond `Number.MAX_SAFE_INTEGER`
 * into `bigint`. Throws `SyntaxError` like `JSON.parse`.
 */
export function parseJsonInt64(text: string): unknown {
  let out = "";
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip a string, escapes included: digits inside it are text.
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) {
        if (text.charCodeAt(i) === 92) i++;
      }
      continue;
    }
    if (c !== 45 && (c < 48 || c > 57)) continue;
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
    const literal = text.slice(i, j);
    const next = text[j];
    if (
      literal.length >= 16 && next !== "." && next !== "e" && next !== "E" &&
      /^-?[1-9]\d*$/.test(literal) && !Number.isSafeInteger(Number(literal))
    ) {
      out += `${text.slice(last, i)}"\\u0000int64:${literal}"`;
      last = j;
    }
    i = j - 1;
  }
  if (last === 0) return JSON.parse(text);
  return JSON.parse(
    out + text.slice(last),
    (_key, v) => typeof v === "string" && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v,
  );
}

/** `JSON.stringify` that writes `bigint` values as JSON integers. */
export function stringifyJsonInt64(value: unknown): string | undefined {
  const text = JSON.stringify(value, (_key, v) => typeof v === "bigint" ? MARK + v : v);
  return text === undefined ? text : text.replace(MARKED, "$1");
}
