/**
 * What importing the package costs: a regular expression literal with a Unicode property
 * (`\p{L}`) is checked while its module is parsed, even inside a function never called, and the
 * first loads the Unicode tables. Four of them in the database modules made Node's import of the
 * npm build about 1 ms longer (8.8 against 7.8 ms here, an eighth of it); such patterns are
 * written as text and compiled at first use (`database/_pattern.ts`).
 */
import assert from "node:assert/strict";
import ts from "typescript";
import { eachNode, librarySources } from "../support/library_sources.ts";
import { unicodePattern } from "../../database/_pattern.ts";

Deno.test("no source holds a regular expression literal with a Unicode property escape", async () => {
  const found: string[] = [];
  let literals = 0;
  for (const [path, sf] of await librarySources()) {
    eachNode(sf, (node) => {
      if (node.kind !== ts.SyntaxKind.RegularExpressionLiteral) return;
      literals++;
      if (/\\[pP]\{/.test(node.getText(sf))) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
        found.push(`${path}:${line + 1}`);
      }
    });
  }
  assert.ok(literals > 50, `${literals} literals read`);
  assert.deepEqual(found, []);
});

Deno.test("unicodePattern compiles once, at its first call, with the u flag", () => {
  const calls: string[] = [];
  const Original = globalThis.RegExp;
  const Counting = new Proxy(Original, {
    construct(target, args) {
      calls.push(String(args[0]));
      return Reflect.construct(target, args);
    },
  });
  globalThis.RegExp = Counting;
  try {
    const letters = unicodePattern("^\\p{L}+$");
    assert.deepEqual(calls, [], "nothing compiled when made");
    const first = letters();
    assert.equal(letters(), first);
    assert.deepEqual(calls, ["^\\p{L}+$"]);
    assert.equal(first.flags, "u");
    assert.ok(first.test("Ωmega"));
    assert.ok(!first.test("a1"));
  } finally {
    globalThis.RegExp = Original;
  }
});
