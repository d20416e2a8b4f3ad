/**
 * Builds the npm package into `npm/` from the same sources as JSR, with the
 * TypeScript compiler from npm (`node_modules/typescript`). dnt, the usual
 * tool for this, is published on JSR, which these machines cannot reach.
 *
 * The sources are staged into `npm/src/` first, with the JSR name in their
 * docs turned into the npm name (`@fetchbase/fetchbase/core` →
 * `fetchbase/core`), and shipped: every source map then points inside the
 * package. Output: `.d.ts` files with declaration maps (one per module,
 * relative `.ts` specifiers rewritten to `.js`) from the TypeScript compiler,
 * which also type-checks everything; ESM JavaScript with source maps from
 * esbuild (also from npm): one entry file per subpath plus shared chunks, so
 * a subpath loads a handful of files instead of dozens (Node's cold start)
 * while classes stay shared between subpaths; `npm:` imports of `deno.json`
 * turned into dependencies with their version ranges; a `package.json` named
 * `fetchbase` whose `exports` mirror `deno.json`'s subpaths (with `types` and
 * `default`, so `require()` works where Node can require ES modules, and
 * `typesVersions` for the old `node` resolution); `"sideEffects": false`;
 * `engines` (Node 20: global WebCrypto); the README (with the npm name), the
 * docs it links to, and LICENSE. Any type error fails the build.
 *
 * Run: `deno task build:npm` (writes `npm/`), or pass an output directory.
 */

import ts from "typescript";

const root = new URL("..", import.meta.url).pathname;
const outDir = Deno.args[0] ?? `${root}npm`;
const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
const sourceDirs = ["core", "auth", "session", "storage", "database", "hono"];

async function collect(): Promise<string[]> {
  const files = [`${root}mod.ts`, `${root}client.ts`];
  for (const dir of sourceDirs) {
    for await (const entry of Deno.readDir(`${root}${dir}`)) {
      if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        files.push(`${root}${dir}/${entry.name}`);
      }
    }
  }
  return files.sort();
}

/** `npm:` imports of deno.json that library code actually imports, with their ranges. */
async function dependencies(files: string[]): Promise<Record<string, string>> {
  const sources = (await Promise.all(files.map((f) => Deno.readTextFile(f)))).join("\n");
  const deps: Record<string, string> = {};
  for (const [name, spec] of Object.entries(config.imports as Record<string, string>)) {
    const m = /^npm:(@?[^@]+)@(.+)$/.exec(spec);
    const imported = new RegExp(`from "${name}(/[^"]*)?";`).test(sources);
    if (m && imported && name !== "hono") deps[m[1]] = m[2];
  }
  return deps;
}

/** Rewrites relative `.ts` specifiers of a declaration file to `.js`. */
function jsSpecifiers(dts: string): string {
  return dts.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']*?)\.ts\2/g, "$1$2$3.js$2");
}

await Deno.remove(outDir, { recursive: true }).catch(() => {});
const stage = `${outDir}/src/`;
const originals = await collect();
// The sources as shipped: their docs name the npm package, not the JSR one.
const files: string[] = [];
for (const file of originals) {
  const target = stage + file.slice(root.length);
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  const text = await Deno.readTextFile(file);
  await Deno.writeTextFile(target, text.replaceAll("@fetchbase/fetchbase", "fetchbase"));
  files.push(target);
}
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.dom.asynciterable.d.ts"],
  types: [],
  strict: true,
  declaration: true,
  emitDeclarationOnly: true,
  declarationMap: true,
  outDir: `${outDir}/esm`,
  rootDir: stage,
  allowImportingTsExtensions: true,
  rewriteRelativeImportExtensions: true,
  skipLibCheck: true,
  noEmitOnError: true,
};
const program = ts.createProgram(files, options);
const emit = program.emit();
const diagnostics = ts.getPreEmitDiagnostics(program).concat(emit.diagnostics);
if (diagnostics.length > 0) {
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  }));
  console.error(`build_npm: ${diagnostics.length} type error(s); nothing published`);
  Deno.exit(1);
}

for await (const dts of walk(`${outDir}/esm`)) {
  if (dts.endsWith(".d.ts")) {
    await Deno.writeTextFile(dts, jsSpecifiers(await Deno.readTextFile(dts)));
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

const entries = Object.values(config.exports as Record<string, string>).map((t) =>
  `${stage}${t.replace(/^\.\//, "")}`
);
const esbuild = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
  args: [
    ...entries,
    "--bundle",
    "--splitting",
    "--format=esm",
    "--platform=neutral",
    "--target=es2022",
    "--sourcemap",
    `--outbase=${stage}`,
    `--outdir=${outDir}/esm`,
    "--chunk-names=_chunks/[name]-[hash]",
    "--log-level=error",
    ...Object.keys(await dependencies(files)).map((d) => `--external:${d}`),
  ],
  stdout: "piped",
  stderr: "piped",
}).output();
if (esbuild.code !== 0) {
  console.error(new TextDecoder().decode(esbuild.stderr));
  console.error("build_npm: esbuild failed");
  Deno.exit(1);
}

const exportsMap: Record<string, { types: string; default: string }> = {};
const typesVersions: Record<string, string[]> = {};
for (const [sub, target] of Object.entries(config.exports as Record<string, string>)) {
  const js = (target as string).replace(/^\.\//, "./esm/").replace(/\.ts$/, ".js");
  exportsMap[sub] = { types: js.replace(/\.js$/, ".d.ts"), default: js };
  if (sub !== ".") typesVersions[sub.replace(/^\.\//, "")] = [exportsMap[sub].types];
}
const pkg = {
  name: "fetchbase",
  version: config.version,
  description:
    "Small, edge-safe client for a hosted backend's auth, storage and database, on Web Fetch, WebCrypto and Web Streams",
  license: config.license,
  type: "module",
  sideEffects: false,
  // Node 20 has WebCrypto as a global (Node 18 needs a flag for it).
  engines: { node: ">=20" },
  exports: exportsMap,
  typesVersions: { "*": typesVersions },
  main: exportsMap["."].default,
  types: exportsMap["."].types,
  files: ["esm", "src", "docs", "bench/README.md", "README.md", "LICENSE"],
  dependencies: await dependencies(files),
};
await Deno.writeTextFile(`${outDir}/package.json`, JSON.stringify(pkg, null, 2) + "\n");
const readme = await Deno.readTextFile(`${root}README.md`);
await Deno.writeTextFile(
  `${outDir}/README.md`,
  readme.replaceAll("@fetchbase/fetchbase", "fetchbase"),
);
await Deno.copyFile(`${root}LICENSE`, `${outDir}/LICENSE`);
// The documents the README links to.
for await (const doc of walk(`${root}docs`)) {
  if (!doc.endsWith(".md")) continue;
  const target = `${outDir}/${doc.slice(root.length)}`;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  await Deno.copyFile(doc, target);
}
await Deno.mkdir(`${outDir}/bench`, { recursive: true });
await Deno.copyFile(`${root}bench/README.md`, `${outDir}/bench/README.md`);
console.log(`build_npm: ${files.length} modules → ${outDir}`);
