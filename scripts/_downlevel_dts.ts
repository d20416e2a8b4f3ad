/**
 * Declarations for TypeScript before 5.7, which the npm package ships beside
 * its own (`ts5.6/`, chosen by the `types@<5.7` condition of its `exports` and
 * by `typesVersions`). The declarations the compiler writes name two things
 * older compilers do not know, and a consumer that checks libraries
 * (`skipLibCheck: false`) failed on every subpath:
 *
 * - typed arrays with a buffer type (`Uint8Array<ArrayBuffer>`, TypeScript
 *   5.7): "Type 'Uint8Array' is not generic". Before 5.7 a `Uint8Array` has no
 *   parameter and its buffer is an `ArrayBuffer`, so the plain name means the
 *   same.
 * - `NoInfer<T>` (TypeScript 5.4): "Cannot find name 'NoInfer'". It becomes
 *   `[T][T extends any ? 0 : never]`, which also keeps `T` from being
 *   inferred at that place (a boolean column still takes no string).
 *
 * Only type references are rewritten, found by the compiler's parser; the
 * rest of the text (comments, positions before the first change on a line)
 * stays as written, so the declaration maps still lead to the sources.
 *
 * @module
 */

import ts from "typescript";

/** The `exports` condition (and `typesVersions` range) of the older declarations. */
export const OLD_TYPESCRIPT = "<5.7";

/** The package directory of the older declarations, beside `esm/`. */
export const OLD_TYPES_DIR = "ts5.6";

/** Typed arrays that take their buffer's type as a parameter since TypeScript 5.7. */
const BUFFER_GENERIC = new Set([
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
  "DataView",
]);

/** What kind of rewrite a type reference needs, if any. */
function kindOf(node: ts.Node): "buffer" | "noInfer" | null {
  if (!ts.isTypeReferenceNode(node) || !ts.isIdentifier(node.typeName)) return null;
  const name = node.typeName.text;
  if (BUFFER_GENERIC.has(name) && node.typeArguments !== undefined) return "buffer";
  if (name === "NoInfer" && node.typeArguments?.length === 1) return "noInfer";
  return null;
}

/**
 * Rewrites a declaration file's text for TypeScript before 5.7.
 *
 * @param text The `.d.ts` text the compiler wrote.
 * @returns The same declarations without buffer-typed typed arrays or `NoInfer`.
 */
export function downlevelDeclarations(text: string): string {
  const file = ts.createSourceFile("x.d.ts", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  // A node's text with the references in it rewritten; the text between its children (comments
  // and punctuation) is copied as written.
  const rewrite = (node: ts.Node, start: number): string => {
    const kind = kindOf(node);
    if (kind === "buffer") return (node as ts.TypeReferenceNode).typeName.getText(file);
    if (kind === "noInfer") {
      const arg = (node as ts.TypeReferenceNode).typeArguments![0];
      const inner = rewrite(arg, arg.getStart(file));
      return `[${inner}][${inner} extends any ? 0 : never]`;
    }
    let out = "";
    let at = start;
    ts.forEachChild(node, (child) => {
      const from = child.getStart(file);
      out += text.slice(at, from) + rewrite(child, from);
      at = child.end;
    });
    return out + text.slice(at, node.end);
  };
  return rewrite(file, 0);
}
