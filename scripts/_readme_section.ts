/**
 * Replaces the generated part of `bench/README.md` between
 * `<!-- name:begin -->` and `<!-- name:end -->` with fresh measurements, so
 * that the measuring scripts write their tables into the README themselves.
 *
 * @module
 */

/**
 * Writes `content` between the markers of section `name` in `file`.
 *
 * @param file The Markdown file.
 * @param name The section's marker name.
 * @param content The new content (Markdown).
 */
export async function replaceSection(file: string, name: string, content: string): Promise<void> {
  const text = await Deno.readTextFile(file);
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${begin} ... ${end} section`);
  const next = `${text.slice(0, from + begin.length)}\n\n${content.trim()}\n\n${text.slice(to)}`;
  await Deno.writeTextFile(file, next);
}
