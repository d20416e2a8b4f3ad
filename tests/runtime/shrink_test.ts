/**
 * The npm bundle's shrink step (`scripts/_build.ts`): local names become short, every name that
 * shows at run time stays, and the check that the result is the same program refuses any other
 * change.
 */
import assert from "node:assert/strict";
import { sameProgram, shrink, syntaxTree } from "../../scripts/_build.ts";

const same = async (a: string, b: string) => sameProgram(await syntaxTree(a), await syntaxTree(b));

Deno.test("sameProgram: renamed locals are the same program; swapped bindings are not", async () => {
  assert.equal(
    await same(
      "export function f(first, second) { const total = first - second; return total; }",
      "export function f(a, b) { const c = a - b; return c; }",
    ),
    true,
  );
  assert.equal(
    await same(
      "export function f(first, second) { return first - second; }",
      "export function f(b, a) { return a - b; }",
    ),
    false,
  );
  // Two locals merged into one name where both are in scope.
  assert.equal(
    await same(
      "export function f(x) { const y = x + 1; return x * y; }",
      "export function f(x) { const y = x + 1; return y * y; }",
    ),
    false,
  );
});

Deno.test("sameProgram: names that show at run time, literals and properties must match", async () => {
  const base =
    "const LIMIT = 3; export function run(v) { const step = () => v.size; return step() > LIMIT ? 'big' : 'small'; } export class Box { #send() { return 1; } }";
  assert.equal(await same(base, base), true);
  // A top-level binding, a function's name, a function named by its variable, a class, a private
  // member, a string, a number and a property, each changed.
  for (
    const changed of [
      base.replace(/LIMIT/g, "L"),
      base.replace("function run", "function r").replace("export function r", "function r"),
      base.replace(/\bstep\b/g, "s"),
      base.replace("class Box", "class B"),
      base.replace(/#send/g, "#a"),
      base.replace("'big'", "'large'"),
      base.replace("LIMIT = 3", "LIMIT = 4"),
      base.replace("v.size", "v.length"),
    ]
  ) {
    assert.notEqual(changed, base);
    assert.equal(await same(base, changed), false, changed);
  }
});

Deno.test("sameProgram: operators, regular expressions and flags must match", async () => {
  for (
    const [a, b] of [
      ["export const f = (x) => x + 1;", "export const f = (x) => x - 1;"],
      ["export const f = (x) => x && 1;", "export const f = (x) => x || 1;"],
      ["export const f = (x) => x == 1;", "export const f = (x) => x === 1;"],
      ["export const f = (x) => !x;", "export const f = (x) => -x;"],
      ["export const f = (x) => typeof x;", "export const f = (x) => void x;"],
      ["export const f = (x) => x++;", "export const f = (x) => x--;"],
      [
        "export const f = (x) => { x += 1; return x; };",
        "export const f = (x) => { x -= 1; return x; };",
      ],
      ["export const r = /ab/g;", "export const r = /cd/g;"],
      ["export const r = /ab/g;", "export const r = /ab/i;"],
      ["export const f = async () => 1;", "export const f = () => 1;"],
      ["export function* g() { return 1; }", "export function g() { return 1; }"],
      ["export function* g() { yield* h(); }", "export function* g() { yield h(); }"],
      ["export class C { static m() {} }", "export class C { m() {} }"],
      [
        "export async function f(x) { for await (const k of x) g(k); }",
        "export async function f(x) { for (const k of x) g(k); }",
      ],
    ]
  ) {
    assert.equal(await same(a, a), true, a);
    assert.equal(await same(a, b), false, `${a} => ${b}`);
  }
});

Deno.test("sameProgram and shrink: a binding a function or class is named by keeps its name", async () => {
  // A default (parameter or destructured) and an assignment name an anonymous function too.
  const source = [
    "export function a(callbackFn = () => 1) { return callbackFn.name; }",
    "export function b(o) { const { handlerFn = () => 1 } = o; return handlerFn.name; }",
    "export function c() { let assignedFn; assignedFn = () => 1; return assignedFn.name; }",
    "export function d() { let lazyFn; lazyFn ??= () => 1; return lazyFn.name; }",
    "export function e() { const classVar = class {}; return classVar.name; }",
    "",
  ].join("\n");
  for (const name of ["callbackFn", "handlerFn", "assignedFn", "lazyFn", "classVar"]) {
    const renamed = source.replace(new RegExp(`\\b${name}\\b`, "g"), "z");
    assert.equal(await same(source, renamed), false, name);
  }
  const dir = await Deno.makeTempDir({ prefix: "fetchbase-shrink-" });
  try {
    const file = `${dir}/bundle.js`;
    await Deno.writeTextFile(file, source);
    await Deno.writeTextFile(
      `${file}.map`,
      JSON.stringify({
        version: 3,
        sources: ["src/a.ts"],
        sourcesContent: ["// a\n"],
        names: [],
        mappings: "AAAA",
      }),
    );
    await shrink(file);
    const mod = await import(`file://${file}`);
    assert.deepEqual(
      [mod.a(), mod.b({}), mod.c(), mod.d(), mod.e()],
      ["callbackFn", "handlerFn", "assignedFn", "lazyFn", "classVar"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("shrink: short local names, run-time names kept, annotations and sources carried", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fetchbase-shrink-" });
  try {
    const source = [
      "const DEFAULT_LIMIT = 10;",
      "export function describeItems(itemList, separatorText) {",
      "  const formatItem = (singleItem) => `${singleItem}`;",
      "  const joinedText = itemList.map(formatItem).join(separatorText);",
      "  return joinedText.length > DEFAULT_LIMIT ? joinedText.slice(0, DEFAULT_LIMIT) + '\u2026' : joinedText;",
      "}",
      "export class Counter { #countValue = 0; #bump(byAmount) { this.#countValue += byAmount; return this.#countValue; } add(stepSize) { return this.#bump(stepSize); } }",
      "export const made = /* @__PURE__ */ new Counter();",
      "",
    ].join("\n");
    const file = `${dir}/bundle.js`;
    await Deno.writeTextFile(file, source + "//# sourceMappingURL=bundle.js.map\n");
    // An identity source map from one original source, with its text.
    const lines = source.split("\n");
    const mappings = lines.map((_, i) => (i === 0 ? "AAAA" : "AACA")).join(";");
    await Deno.writeTextFile(
      `${file}.map`,
      JSON.stringify({
        version: 3,
        sources: ["src/items.ts"],
        sourcesContent: ["// the original text\n"],
        names: [],
        mappings,
      }),
    );
    await shrink(file);
    const out = await Deno.readTextFile(file);
    for (
      const kept of [
        "DEFAULT_LIMIT",
        "describeItems",
        "formatItem",
        "Counter",
        "#bump",
        "#countValue",
        "add(",
        "made",
      ]
    ) {
      assert.ok(out.includes(kept), `${kept} kept: ${out}`);
    }
    for (
      const renamed of [
        "itemList",
        "separatorText",
        "singleItem",
        "joinedText",
        "byAmount",
        "stepSize",
      ]
    ) {
      assert.ok(!out.includes(renamed), `${renamed} renamed: ${out}`);
    }
    assert.ok(out.includes("/*@__PURE__*/") || out.includes("/* @__PURE__ */"), out);
    assert.ok(out.includes("\\u2026") && !out.includes("\u2026"), "ASCII only");
    assert.ok(!out.includes("\n  "), "no indentation left");
    const map = JSON.parse(await Deno.readTextFile(`${file}.map`));
    assert.deepEqual(map.sources, ["src/items.ts"]);
    assert.deepEqual(map.sourcesContent, ["// the original text\n"]);
    // A map that names its sources without their text (the npm bundle's) stays without it.
    const bare = `${dir}/bare.js`;
    await Deno.writeTextFile(bare, source + "//# sourceMappingURL=bare.js.map\n");
    await Deno.writeTextFile(
      `${bare}.map`,
      JSON.stringify({ version: 3, sources: ["src/items.ts"], names: [], mappings }),
    );
    await shrink(bare);
    const bareMap = JSON.parse(await Deno.readTextFile(`${bare}.map`));
    assert.deepEqual(bareMap.sources, ["src/items.ts"]);
    assert.equal(bareMap.sourcesContent, undefined);
    // The shrunk module still works.
    const mod = await import(`file://${file}`);
    assert.equal(mod.describeItems(["a", "b"], "-"), "a-b");
    assert.equal(mod.describeItems(["abcdef", "ghijkl"], ""), "abcdefghij\u2026");
    assert.equal(mod.made.add(2), 2);
    assert.equal(mod.describeItems.name, "describeItems");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
