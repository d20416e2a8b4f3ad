/**
 * Unicode patterns compiled at their first use. A `\p{…}` regular expression literal is checked
 * while its module is parsed, even inside a function never called: four of them made Node's
 * import of the package about 1 ms longer (of about 9), most of it loading the Unicode tables at
 * the first. Written as text, a pattern costs nothing until a database call needs it.
 */

/**
 * A function that returns the pattern `source` with the `u` flag, compiled at its first call.
 *
 * @param source The pattern's text.
 * @returns The pattern, the same object at every call.
 */
export function unicodePattern(source: string): () => RegExp {
  let compiled: RegExp | undefined;
  return () => (compiled ??= new RegExp(source, "u"));
}
