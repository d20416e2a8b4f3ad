/** The library's TypeScript sources (tests, examples and scripts aside), parsed. */
import ts from "typescript";

const root = new URL("../../", import.meta.url).pathname;
const AREAS = ["core", "auth", "session", "storage", "database", "hono"];

/**
 * Every source file of the library, by its path from the project root, parsed by the TypeScript
 * compiler from npm.
 */
export async function librarySources(): Promise<Map<string, ts.SourceFile>> {
  const files = new Map<string, ts.SourceFile>();
  const add = async (path: string) => {
    const text = await Deno.readTextFile(`${root}${path}`);
    files.set(path, ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true));
  };
  await add("mod.ts");
  await add("client.ts");
  for (const area of AREAS) {
    for await (const entry of Deno.readDir(`${root}${area}`)) {
      if (entry.isFile && entry.name.endsWith(".ts")) await add(`${area}/${entry.name}`);
    }
  }
  return files;
}

/** Calls `visit` on every node of `file`, depth first. */
export function eachNode(file: ts.SourceFile, visit: (node: ts.Node) => void): void {
  ts.forEachChild(file, function walk(node) {
    visit(node);
    ts.forEachChild(node, walk);
  });
}
