/**
 * The `key=value` pairs of the URL queries quoted in a text, for redaction.
 *
 * @module
 */

/**
 * The pairs of the queries quoted in `text` (each after a `?` or an `&`: a URL, a whole error
 * message quoting one), each value as written and decoded (the same text when it is not
 * percent-encoded). A key holds no `?`: with one, each `?` of a long run of them began a match
 * that scanned to the end of the text, which made a hostile redirect URL take quadratic time.
 */
export function quotedQueryPairs(
  text: string,
): Array<[key: string, written: string, decoded: string]> {
  const out: Array<[string, string, string]> = [];
  for (const [, key, written] of text.matchAll(/[?&]([^=&#?\s]+)=([^&#\s"'<>]+)/g)) {
    let decoded = written;
    try {
      decoded = decodeURIComponent(written.replace(/\+/g, " "));
    } catch {
      // Not percent-encoded text: as written.
    }
    out.push([key, written, decoded]);
  }
  return out;
}
