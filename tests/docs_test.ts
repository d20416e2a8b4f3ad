// The distribution issue's JSDoc rule, held by a test: every export of every entry point in
// deno.json has a summary and a titled `@example`; a function documents each named parameter
// (`@param`) and, unless it returns nothing, what it returns (`@returns`); a class has a titled
// `@example` too. `deno doc --lint` checks less (it wants no example); `deno check --doc` (CI)
// type-checks the examples.
import assert from "node:assert/strict";

interface Tag {
  kind: string;
  name?: string;
  doc?: string;
}
interface Declaration {
  kind: string;
  declarationKind: string;
  jsDoc?: { doc?: string; tags?: Tag[] };
  def?: {
    params?: Array<{ kind: string; name?: string }>;
    returnType?: { repr: string; typeParams?: Array<{ repr: string }> };
  };
}
interface DocJson {
  nodes: Record<string, { symbols: Array<{ name: string; declarations: Declaration[] }> }>;
}

const root = new URL("../", import.meta.url).pathname;

async function docOf(entry: string): Promise<DocJson> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** What is missing from one declaration's JSDoc, if anything. */
function gaps(d: Declaration): string[] {
  const doc = d.jsDoc;
  const tags = doc?.tags ?? [];
  const out: string[] = [];
  if (!doc?.doc?.trim()) out.push("summary");
  const example = tags.find((t) => t.kind === "example");
  // Titled: text before the code block.
  if (!example || !/^[^`\n]+\n/.test(example.doc ?? "")) out.push("titled @example");
  if (d.kind === "function") {
    const documented = new Set(tags.filter((t) => t.kind === "param").map((t) => t.name));
    for (const p of d.def?.params ?? []) {
      if (p.kind === "identifier" && p.name && !documented.has(p.name)) {
        out.push(`@param ${p.name}`);
      }
    }
    // `deno doc` writes `Promise<void>` as the type `Promise` with `void` as its parameter.
    const type = d.def?.returnType;
    const returns = type?.repr === "Promise" ? type.typeParams?.[0]?.repr ?? "" : type?.repr ?? "";
    if (!/^(void|never)$/.test(returns) && !tags.some((t) => t.kind === "return")) {
      out.push("@returns");
    }
  }
  return out;
}

Deno.test("every export of every entry point has a summary, a titled example, its parameters and its returns", async () => {
  const exports = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).exports as Record<
    string,
    string
  >;
  const problems: string[] = [];
  let checked = 0;
  for (const entry of new Set(Object.values(exports))) {
    const doc = await docOf(entry);
    for (const mod of Object.values(doc.nodes)) {
      for (const symbol of mod.symbols) {
        for (const d of symbol.declarations) {
          if (d.declarationKind !== "export") continue;
          if (!["function", "class", "variable"].includes(d.kind)) continue;
          checked++;
          const missing = gaps(d);
          if (missing.length > 0) {
            problems.push(`${entry}: ${symbol.name} lacks ${missing.join(", ")}`);
          }
        }
      }
    }
  }
  assert.deepEqual([...new Set(problems)], []);
  assert.ok(checked > 300, `${checked} declarations checked`);
});
