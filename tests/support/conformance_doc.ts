/**
 * The number of calls `docs/CONFORMANCE.md`'s table says a conformance test compares, so that the
 * test can hold the document to its own case list (two counts had drifted from the lists).
 */

const doc = new URL("../../docs/CONFORMANCE.md", import.meta.url);

/** The count that opens the "Calls compared" cell of the table row for `area`. */
export async function documentedCount(area: string): Promise<number> {
  const text = await Deno.readTextFile(doc);
  const row = text.split("\n").find((line) => line.startsWith(`| ${area} `));
  const count = row?.split("|")[3]?.trim().match(/^(\d+) /)?.[1];
  if (count === undefined) throw new Error(`docs/CONFORMANCE.md has no count for '${area}'`);
  return Number(count);
}
