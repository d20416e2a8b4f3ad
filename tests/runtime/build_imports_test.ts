// The npm and JSR builds take the package's dependencies from what the library's modules import,
// read from their syntax trees (scripts/_build.ts `importedSpecifiers`).
import assert from "node:assert/strict";
import { importedSpecifiers } from "../../scripts/_build.ts";

Deno.test("importedSpecifiers: a doc example after a regular expression holding a quote is no import", () => {
  // As the Hono middleware had it: TypeScript's `preProcessFile` lost its way at the `"` inside
  // the regular expression and read the doc comment's `import` as one (hono became a peer).
  const text = [
    'const realm = (given: string) => `realm="${given.replace(/["\\\\]/g, "\\\\$&")}"`;',
    "/**",
    " * @example",
    " * ```ts",
    ' * import { Hono } from "hono";',
    " * ```",
    " */",
    "export function f(): void {}",
  ].join("\n");
  assert.deepEqual(importedSpecifiers(text, "mod.ts"), []);
});

Deno.test("importedSpecifiers: imports, re-exports, import() types and calls, import = require and type references", () => {
  const text = [
    '/// <reference types="node" />',
    'import { a } from "./a.ts";',
    'import type { B } from "npm-b";',
    'export * from "./c.ts";',
    'export { d } from "@scope/d/sub";',
    'type E = import("e-types").E;',
    'const f = () => import("./f.ts");',
    'import g = require("g-cjs");',
    'const s = "import { x } from \\"not-an-import\\"";',
  ].join("\n");
  assert.deepEqual(importedSpecifiers(text, "mod.ts").sort(), [
    "./a.ts",
    "./c.ts",
    "./f.ts",
    "@scope/d/sub",
    "e-types",
    "g-cjs",
    "node",
    "npm-b",
  ]);
});
