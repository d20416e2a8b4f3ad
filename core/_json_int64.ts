/**
 * JSON with 64-bit integers, for the Iceberg catalog (snapshot ids, sequence
 * numbers) and database writes (`int8` ids): `JSON.parse` would round them
 * (3497810964824022504 becomes ...500), and `JSON.stringify` cannot write a
 * `bigint`. Integers beyond 2^53 are read as `bigint`, and `bigint` values
 * are written as bare JSON integers, so ids read from one answer can be sent
 * back.
 */

/** A marker no data can hold: drawn per call, so no string can forge it. */
export function freshMark(): string {
  return `\u0000int64:${Math.random().toString(36).slice(2)}:`;
}

/** A number token of valid JSON text from where it starts: sign, digits, fraction, exponent. */
const NUMBER = /-?\d[\d.eE+-]*/y;

/**
 * Valid JSON `text` with each number literal for which `keep` holds written as the string `mark`
 * + literal, or null when there is none. Literals shorter than `minLength` are not offered.
 */
export function markNumbers(
  text: string,
  mark: string,
  keep: (literal: string) => boolean,
  minLength = 0,
): string | null {
  let out = "";
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip a string, escapes included: digits inside it are text. Its closing quote is the
      // first one after an even run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        // No closing quote (not JSON, which callers parse first): nothing more to mark.
        if (q < 0) return last === 0 ? null : out + text.slice(last);
        let b = q - 1;
        while (text.charCodeAt(b) === 92) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
      continue;
    }
    if (c !== 45 && (c < 48 || c > 57)) continue;
    NUMBER.lastIndex = i;
    // A `-` that starts no number (text that is not JSON) is passed over.
    const j = NUMBER.test(text) ? NUMBER.lastIndex : i + 1;
    if (j - i >= minLength) {
      const literal = text.slice(i, j);
      if (keep(literal)) {
        out += `${text.slice(last, i)}${JSON.stringify(mark + literal)}`;
        last = j;
      }
    }
    i = j - 1;
  }
  return last === 0 ? null : out + text.slice(last);
}

/** JSON text with each quoted `mark` + literal written as the bare literal (none without a mark). */
export function unquoteMarks(json: string, mark: string | null): string {
  if (mark === null) return json;
  const quoted = JSON.stringify(mark).slice(0, -1); // as it opens a string in JSON text
  return json.split(quoted).map((part, n) => {
    if (n === 0) return part;
    const end = part.indexOf('"');
    return part.slice(0, end) + part.slice(end + 1);
  }).join("");
}

/**
 * Parses JSON text, turning integer literals beyond `Number.MAX_SAFE_INTEGER`
 * into `bigint`. Throws `SyntaxError` exactly when `JSON.parse` does, with a
 * message of its own: V8's quotes the text's first characters, which may be
 * the start of a secret no redaction can know as cut.
 */
export function parseJsonInt64(text: string): unknown {
  let plain: unknown;
  try {
    plain = JSON.parse(text); // validates first: the rewrite below assumes valid JSON
  } catch {
    throw new SyntaxError("the text is not valid JSON");
  }
  // An unsafe integer is a number token of 16 digits or more, first not 0: one native scan spares
  // the common case the loop. A token starts the text or follows `:`, `,` or `[` (and JSON's
  // whitespace): a float's fraction (`0.43333333333333335`) or digits inside a string
  // (`"ORD-1000000000000001"`) are none. Spelled out: V8 scans a fixed run of classes about 10x
  // faster than `\d{15}` (which costs more than JSON.parse itself on a large body).
  if (!/(?:^|[:,[])[ \t\n\r]*-?[1-9]\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d/.test(text)) return plain;
  const mark = freshMark();
  const marked = markNumbers(
    text,
    mark,
    (literal) => /^-?[1-9]\d{15,}$/.test(literal) && !Number.isSafeInteger(Number(literal)),
    16,
  );
  if (marked === null) return plain;
  // A walk over the parsed value, not a reviver: V8 parses several times slower with one.
  return withBigInts(JSON.parse(marked), mark);
}

/**
 * `value` (parsed JSON) with each string `mark` + literal replaced by the literal's `bigint`, in
 * place. Each member replaced is an own data property of the parsed object, so the assignment
 * sets it, `__proto__` included (it never reaches the prototype's setter).
 */
function withBigInts(value: unknown, mark: string): unknown {
  if (typeof value === "string") {
    return value.startsWith(mark) ? BigInt(value.slice(mark.length)) : value;
  }
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v === "object" && v !== null) withBigInts(v, mark);
    else if (typeof v === "string" && v.startsWith(mark)) {
      o[k] = BigInt(v.slice(mark.length));
    }
  }
  return value;
}

/** `JSON.stringify` that writes `bigint` values as JSON integers. */
export function stringifyJsonInt64(value: unknown): string | undefined {
  const mark = freshMark();
  const text = JSON.stringify(value, (_key, v) => typeof v === "bigint" ? mark + v : v);
  return text === undefined ? text : unquoteMarks(text, mark);
}

/**
 * `JSON.stringify`, with `bigint` values as JSON integers: the plain call
 * first (no replacer on the common path), the marked rewrite only when it
 * refuses a `bigint`.
 */
export function stringifyJson(value: unknown): string | undefined {
  try {
    try {
      return JSON.stringify(value);
    } catch (e) {
      if (e instanceof TypeError && /bigint/i.test(e.message)) return stringifyJsonInt64(value);
      throw e;
    }
  } catch (e) {
    // A cycle (beside a bigint too), or a toJSON that throws: the caller's value, refused with
    // a clear TypeError.
    throw new TypeError(
      `Cannot send the value as JSON: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}
