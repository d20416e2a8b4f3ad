/**
 * The package build shared by `build_npm.ts` and `build_jsr.ts`: both ship the same code, built from the sources with the TypeScript compiler and
 * esbuild from npm (dnt, the usual tool for the npm side, is published on JSR,
 * which these machines cannot reach).
 *
 * The sources are staged into `<out>/src/` first (for npm, with the JSR name in
 * their docs turned into the npm name: `@fetchbase/fetchbase/core` →
 * `fetchbase/core`) and shipped: every source map then points inside the
 * package. Their npm imports resolve as from the repository (its
 * `node_modules`), wherever the output directory is. Output: `.d.ts` files
 * with declaration maps (one per module) from the TypeScript compiler, which
 * also type-checks everything (any type error fails the build); ESM
 * JavaScript from esbuild: the whole library as one bundle, with its source
 * map, and each other subpath a one-line file of re-exports from it, so an
 * import loads one or two files (a cold start is mostly a cost per file, in
 * Node and in Deno alike) while classes stay shared between subpaths. For npm
 * the bundle is the root subpath's file (`esm/mod.js`), shrunk by terser (see
 * `shrink`); for JSR it is `_bundle.js`, left readable, beside a `mod.js` of
 * re-exports. The `npm:`
 * imports of `deno.json` that the library's code imports (not its doc
 * examples: `hono` is only in those) become dependencies with their version
 * ranges, and the build fails if a declaration file imports a package that is
 * not one. The README, the docs it links to and LICENSE go along.
 *
 * - `npm`: the JavaScript and declarations under `esm/`, relative `.ts`
 *   specifiers of the declarations rewritten to `.js`; a `package.json` named
 *   `fetchbase` whose `exports` mirror `deno.json`'s subpaths (with `types`, `node` for the
 *   one bundle, which Node, Deno and Bun resolve, and `default` for bundlers: every
 *   module on its own under `esm/split/`, so that an app's
 *   bundler can leave the code only a lazily loaded route uses out of its first chunk;
 *   `require()` works where Node can require ES modules; and
 *   `typesVersions` for the old `node` resolution); the declarations again
 *   under `ts5.6/` for TypeScript before 5.7 (`_downlevel_dts.ts`), chosen by
 *   a `types@<5.7` condition and a `typesVersions` range; `"sideEffects": false`;
 *   `engines` (Node 20: global WebCrypto); `hono`, if ever imported, an
 *   optional peer dependency.
 * - `jsr`: the same files at the package's root, each subpath's file naming
 *   its declarations with `// @ts-self-types`, relative specifiers of the
 *   declarations rewritten to `.d.ts` (Deno resolves a specifier as written);
 *   a `deno.json` with the package's name, version and `exports` (the `.js`
 *   files), its npm dependencies as `imports`. Deno then loads two plain
 *   JavaScript files, where the TypeScript sources cost a cached transpile
 *   per module (see the cold-start section of `bench/README.md`).
 *
 * @module
 */

import ts from "typescript";
import { minify } from "terser";
import { downlevelDeclarations, OLD_TYPES_DIR, OLD_TYPESCRIPT } from "./_downlevel_dts.ts";

const root = new URL("..", import.meta.url).pathname;
const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
const sourceDirs = ["core", "auth", "session", "storage", "database", "hono"];
/** Where npm's split build for bundlers goes, under `esm/` (see `buildPackage`). */
const SPLIT_DIR = "split";

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

/**
 * The module specifiers `text` imports, re-exports, names in `import()` types or
 * calls `import()` with, and its `/// <reference types>`, read from its syntax
 * tree. Not `ts.preProcessFile`: its scanner does not know regular expressions,
 * and a `"` inside one (the Hono middleware's `/["\\]/g`) put it out of step, so
 * the `import` lines of the doc comments after it were read as imports (`hono`
 * became a peer dependency of the package).
 */
export function importedSpecifiers(text: string, fileName: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = source.typeReferenceDirectives.map((d) => d.fileName);
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push(node.argument.literal.text);
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    } else if (
      ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      out.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * `npm:` imports of deno.json that library code actually imports (or re-exports,
 * or names in `import()` types), with their ranges. The specifiers come from the
 * syntax tree, not a text search, so an import in a doc example (the Hono
 * middleware's docs show `import { Hono } from "hono"`) is not one: the
 * middleware types its Hono context structurally, and its declarations import
 * nothing from `hono`, so `hono` is no dependency of the package. Were it ever
 * imported, it would become an optional peer dependency (see `optionalPeers`).
 */
async function dependencies(files: string[]): Promise<Record<string, string>> {
  const imported = new Set<string>();
  for (const file of files) {
    for (const spec of importedSpecifiers(await Deno.readTextFile(file), file)) imported.add(spec);
  }
  const deps: Record<string, string> = {};
  for (const [name, spec] of Object.entries(config.imports as Record<string, string>)) {
    const m = /^npm:(@?[^@]+)@(.+)$/.exec(spec);
    if (m && [...imported].some((s) => s === name || s.startsWith(`${name}/`))) deps[m[1]] = m[2];
  }
  return deps;
}

/**
 * Rewrites the relative `.ts` specifiers of a declaration file to `ext`: `.js`
 * for npm (TypeScript maps it to the `.d.ts` beside), `.d.ts` for JSR (Deno
 * resolves a specifier as written).
 */
function rewriteSpecifiers(dts: string, ext: ".js" | ".d.ts"): string {
  return dts.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']*?)\.ts\2/g, `$1$2$3${ext}$2`);
}

/** Which package to build: the npm one or the JSR one. */
export type Target = "npm" | "jsr";

/**
 * Builds the `target` package into `outDir` (relative to the working
 * directory; emptied first) and exits the process with a message on any type
 * error or unmappable export.
 */
export async function buildPackage(target: Target, outArg: string): Promise<void> {
  const tag = `build_${target}`;
  // Absolute: esbuild runs from the project root, and its entry points are matched by path.
  const outDir = new URL(outArg, `file://${Deno.cwd()}/`).pathname.replace(/\/$/, "");
  // Where the JavaScript and the declarations go.
  const lib = target === "npm" ? `${outDir}/esm` : outDir;
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  const stage = `${outDir}/src/`;
  const originals = await collect();
  // The sources as shipped: on npm, their docs name the npm package, not the JSR one.
  const files: string[] = [];
  for (const file of originals) {
    const staged = stage + file.slice(root.length);
    await Deno.mkdir(staged.slice(0, staged.lastIndexOf("/")), { recursive: true });
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(
      staged,
      target === "npm" ? text.replaceAll(config.name, "fetchbase") : text,
    );
    files.push(staged);
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
    outDir: lib,
    rootDir: stage,
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    skipLibCheck: true,
    noEmitOnError: true,
  };
  // The staged copy may be outside the repository (an output directory given as
  // an argument), away from its `node_modules`: bare specifiers resolve as from
  // the original file, so npm imports find the repository's packages wherever
  // the output goes. Relative ones resolve among the staged files.
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, sourceFile) =>
    literals.map((literal) => {
      const bare = !/^\.{0,2}\//.test(literal.text);
      const from = bare && containingFile.startsWith(stage)
        ? root + containingFile.slice(stage.length)
        : containingFile;
      const mode = ts.getModeForUsageLocation(sourceFile, literal, opts);
      return ts.resolveModuleName(literal.text, from, opts, host, undefined, redirected, mode);
    });
  const program = ts.createProgram(files, options, host);
  const emit = program.emit();
  const diagnostics = ts.getPreEmitDiagnostics(program).concat(emit.diagnostics);
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }));
    console.error(`${tag}: ${diagnostics.length} type error(s); nothing published`);
    Deno.exit(1);
  }

  const deps = await dependencies(files);
  // Packages only a subpath that needs them brings in (the `./hono` middleware and
  // Hono): optional peer dependencies, so the app's own copy is the one used.
  const optionalPeers = new Set(["hono"]);
  const required = Object.fromEntries(Object.entries(deps).filter(([n]) => !optionalPeers.has(n)));
  const peers = Object.fromEntries(Object.entries(deps).filter(([n]) => optionalPeers.has(n)));
  for await (const dts of walk(lib)) {
    if (dts.endsWith(".d.ts") && !dts.startsWith(stage)) {
      const text = await Deno.readTextFile(dts);
      // A package a declaration imports must be a dependency, or consumers' type checks fail.
      for (const fileName of importedSpecifiers(text, dts)) {
        // Relative files and Node's built-ins (`node:`) are not packages.
        const bare = !/^(\.{0,2}\/|node:)/.test(fileName);
        const pkgName = fileName.split("/").slice(0, fileName.startsWith("@") ? 2 : 1).join("/");
        if (bare && !(pkgName in deps)) {
          console.error(`${tag}: ${dts} imports "${fileName}", not a dependency`);
          Deno.exit(1);
        }
      }
      const rewritten = rewriteSpecifiers(text, target === "npm" ? ".js" : ".d.ts");
      await Deno.writeTextFile(dts, rewritten);
      if (target === "npm") {
        // The same declarations for TypeScript before 5.7, in the same tree under
        // `ts5.6/` (the declaration maps go along: their sources are as far up).
        const old = `${outDir}/${OLD_TYPES_DIR}/${dts.slice(lib.length + 1)}`;
        await Deno.mkdir(old.slice(0, old.lastIndexOf("/")), { recursive: true });
        await Deno.writeTextFile(old, downlevelDeclarations(rewritten));
        await Deno.copyFile(`${dts}.map`, `${old}.map`);
      }
    }
  }

  async function* walk(dir: string): AsyncGenerator<string> {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) yield* walk(path);
      else if (entry.isFile) yield path;
    }
  }

  const subpaths = Object.entries(config.exports as Record<string, string>).map(([sub, file]) => ({
    sub,
    source: `${stage}${file.replace(/^\.\//, "")}`,
    js: `${lib}/${file.replace(/^\.\//, "").replace(/\.ts$/, ".js")}`,
  }));
  const externals = Object.keys(deps).map((d) => `--external:${d}`);

  /** Runs esbuild on `args`: a bundle (the npm imports left external), or each file as it is. */
  async function esbuild(args: string[], bundle = true): Promise<void> {
    const out = await new Deno.Command(`${root}node_modules/.bin/esbuild`, {
      args: [
        ...(bundle ? ["--bundle", ...externals] : []),
        "--format=esm",
        "--platform=neutral",
        "--target=es2022",
        "--log-level=error",
        ...args,
      ],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (out.code !== 0) {
      console.error(new TextDecoder().decode(out.stderr));
      console.error(`${tag}: esbuild failed`);
      Deno.exit(1);
    }
  }

  // Each subpath's runtime exports (type-only ones excluded), as esbuild sees them.
  const probe = await Deno.makeTempDir({ prefix: "fetchbase-npm-" });
  await esbuild([
    ...subpaths.map((s) => s.source),
    "--splitting",
    `--outbase=${stage}`,
    `--outdir=${probe}`,
    `--metafile=${probe}/meta.json`,
  ]);
  const meta = JSON.parse(await Deno.readTextFile(`${probe}/meta.json`)) as {
    outputs: Record<string, { entryPoint?: string; exports: string[] }>;
  };
  await Deno.remove(probe, { recursive: true });
  const runtimeNames = new Map<string, string[]>();
  for (const output of Object.values(meta.outputs)) {
    // Entry points are named relative to esbuild's working directory, `root`.
    if (output.entryPoint) {
      runtimeNames.set(new URL(output.entryPoint, `file://${root}`).pathname, output.exports);
    }
  }

  // One bundle holds the whole library, each binding exported once (the type checker
  // says which exported names of different subpaths are the same declaration); each
  // subpath is a file of re-exports from it. Most of an import's cost in Node is per
  // file, not per module, so this keeps the cold start low, and classes stay shared
  // between subpaths (one `ServiceError` whichever subpath it comes from). For npm the
  // bundle is the root subpath's own file (`esm/mod.js`), so importing `fetchbase`
  // reads one file and any other subpath two; the few names that only other subpaths
  // export (`./storage/objects`' functions, `./hono`'s middleware) are exported from it
  // under internal names (`_storage_objects$upload`), which its declarations do not
  // name. For JSR, Deno caches compiled code, and the bundle is `_bundle.js`, beside a
  // `mod.js` of re-exports like every other subpath.
  const rootSubpath = subpaths.find((s) => s.sub === ".");
  if (rootSubpath === undefined) {
    console.error(`${tag}: deno.json exports no "." subpath`);
    Deno.exit(1);
  }
  const bundleFile = target === "npm" ? rootSubpath.js : `${lib}/_bundle.js`;
  const checker = program.getTypeChecker();
  const aliasOf = new Map<ts.Symbol, string>();
  const taken = new Set<string>();
  const bundleExports: string[] = [];
  const entryExports = new Map<string, Array<[string, string]>>();
  // The root subpath first: its names are the bundle's own.
  const ordered = [rootSubpath, ...subpaths.filter((s) => s !== rootSubpath)];
  for (const { sub, source } of ordered) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(source)!)!;
    const names = new Set(runtimeNames.get(source));
    const pairs: Array<[string, string]> = [];
    const internal = target === "npm" && sub !== ".";
    const prefix = internal ? `_${sub.slice(2).replace(/[^A-Za-z0-9]/g, "_")}$` : "";
    for (const symbol of checker.getExportsOfModule(module)) {
      if (!names.has(symbol.name)) continue;
      const target = symbol.flags & ts.SymbolFlags.Alias
        ? checker.getAliasedSymbol(symbol)
        : symbol;
      let alias = aliasOf.get(target);
      if (
        alias !== undefined && bundleFile === rootSubpath.js && sub === "." && alias !== symbol.name
      ) {
        // The root file is the bundle: each of its names must be one of the bundle's own.
        bundleExports.push(
          `export { ${symbol.name} } from ${JSON.stringify(`./${source.slice(stage.length)}`)};`,
        );
        taken.add(symbol.name);
        alias = symbol.name;
      }
      if (alias === undefined) {
        alias = prefix + symbol.name;
        for (let i = 2; taken.has(alias); i++) alias = `${prefix}${symbol.name}$${i}`;
        taken.add(alias);
        aliasOf.set(target, alias);
        bundleExports.push(
          `export { ${symbol.name} as ${alias} } from ${
            JSON.stringify(`./${source.slice(stage.length)}`)
          };`,
        );
      }
      pairs.push([alias, symbol.name]);
    }
    if (names.size === 0 || pairs.length !== names.size) {
      console.error(`${tag}: could not map the exports of ${source}`);
      Deno.exit(1);
    }
    entryExports.set(source, pairs);
  }
  const bundleEntry = `${stage}_bundle.ts`;
  await Deno.writeTextFile(bundleEntry, bundleExports.join("\n") + "\n");
  // npm ships the sources the map names (`src/`): their text again in the map was a quarter of
  // the package. JSR's map keeps it.
  await esbuild([
    bundleEntry,
    "--sourcemap",
    ...(target === "npm" ? ["--sources-content=false"] : []),
    `--outfile=${bundleFile}`,
  ]);
  if (target === "npm") await shrink(bundleFile);
  await Deno.remove(bundleEntry);
  for (const { source, js } of subpaths) {
    if (js === bundleFile) continue;
    const from = relativeTo(js, bundleFile);
    const list = entryExports.get(source)!.map(([alias, name]) =>
      alias === name ? name : `${alias} as ${name}`
    );
    await Deno.mkdir(js.slice(0, js.lastIndexOf("/")), { recursive: true });
    // On JSR, the file names its declarations: Deno reads types from there, not from the bundle.
    const types = target === "jsr"
      ? `// @ts-self-types=${JSON.stringify(`./${js.slice(js.lastIndexOf("/") + 1, -3)}.d.ts`)}\n`
      : "";
    await Deno.writeTextFile(
      js,
      `${types}export { ${list.join(", ")} } from ${JSON.stringify(from)};\n`,
    );
  }

  // For bundlers, npm also ships every module on its own (`esm/split/`), transpiled as it is
  // with its relative `.ts` specifiers turned into `.js`. With the one bundle, a bundler puts the
  // whole library in the chunk of an app's first page as soon as any of it is used there (it
  // assigns whole modules to chunks): a route loaded later could not keep the code only it uses.
  // (esbuild's own code splitting was tried: its entries import shared chunks bare, for their
  // order, which a package without side effects made every consumer's esbuild warn about.) Node,
  // and Deno and Bun, which resolve the `node` condition, keep the one bundle: it imports faster
  // than a hundred files. Every other resolver takes `default`.
  if (target === "npm") {
    const modules: string[] = [];
    for await (const file of walk(stage.slice(0, -1))) {
      if (file.endsWith(".ts") && !file.endsWith(".d.ts")) modules.push(file);
    }
    const split = `${lib}/${SPLIT_DIR}`;
    await esbuild([
      ...modules,
      `--outbase=${stage}`,
      `--outdir=${split}`,
      "--sourcemap",
      "--sources-content=false",
    ], false);
    // Static and dynamic imports, and re-exports, of relative `.ts` files.
    const specifier = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.\.?\/[^"']*)\.ts\2/g;
    for await (const file of walk(split)) {
      if (!file.endsWith(".js")) continue;
      const text = await Deno.readTextFile(file);
      await Deno.writeTextFile(file, text.replace(specifier, "$1$2$3.js$2"));
    }
  }

  /** The specifier that leads from file `from` to file `to` (both absolute). */
  function relativeTo(from: string, to: string): string {
    const a = from.split("/").slice(0, -1);
    const b = to.split("/");
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    const up = a.length - i;
    return (up === 0 ? "./" : "../".repeat(up)) + b.slice(i).join("/");
  }

  if (target === "npm") {
    // TypeScript before 5.7 reads the declarations of `ts5.6/` (see `_downlevel_dts.ts`): a
    // `types@<5.7` condition ahead of `types` in `exports`, and a `typesVersions` range ahead
    // of `*` for the old `node` resolution, which maps the `types` field's path too.
    const exportsMap: Record<string, Record<string, string>> = {};
    const typesVersions: Record<string, string[]> = {};
    const oldTypesVersions: Record<string, string[]> = {};
    for (const [sub, target] of Object.entries(config.exports as Record<string, string>)) {
      const js = (target as string).replace(/^\.\//, "./esm/").replace(/\.ts$/, ".js");
      const types = js.replace(/\.js$/, ".d.ts");
      const oldTypes = types.replace(/^\.\/esm\//, `./${OLD_TYPES_DIR}/`);
      const split = js.replace(/^\.\/esm\//, `./esm/${SPLIT_DIR}/`);
      exportsMap[sub] = { [`types@${OLD_TYPESCRIPT}`]: oldTypes, types, node: js, default: split };
      const key = sub === "." ? types.slice(2) : sub.slice(2);
      if (sub !== ".") typesVersions[key] = [types];
      oldTypesVersions[key] = [oldTypes];
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
      // Tools read the manifest through the package's own name (`fetchbase/package.json`).
      exports: { ...exportsMap, "./package.json": "./package.json" },
      typesVersions: { [OLD_TYPESCRIPT]: oldTypesVersions, "*": typesVersions },
      main: exportsMap["."].node,
      types: exportsMap["."].types,
      files: [
        "esm",
        OLD_TYPES_DIR,
        "src",
        "docs",
        "bench/README.md",
        "bench/HISTORY.md",
        "README.md",
        "LICENSE",
      ],
      dependencies: required,
      ...(Object.keys(peers).length > 0
        ? {
          peerDependencies: peers,
          peerDependenciesMeta: Object.fromEntries(
            Object.keys(peers).map((name) => [name, { optional: true }]),
          ),
        }
        : {}),
    };
    await Deno.writeTextFile(`${outDir}/package.json`, JSON.stringify(pkg, null, 2) + "\n");
  } else {
    const manifest = {
      name: config.name,
      version: config.version,
      license: config.license,
      exports: Object.fromEntries(
        subpaths.map(({ sub, js }) => [sub, `./${js.slice(lib.length + 1)}`]),
      ),
      // Publish every file, even where a .gitignore hides the directory (the repository's
      // ignores `jsr/`, this build's default place).
      publish: { exclude: ["!."] },
      ...(Object.keys(deps).length > 0
        ? {
          imports: Object.fromEntries(
            Object.entries(deps).map(([d, range]) => [d, `npm:${d}@${range}`]),
          ),
        }
        : {}),
    };
    await Deno.writeTextFile(`${outDir}/deno.json`, JSON.stringify(manifest, null, 2) + "\n");
  }
  const readme = await Deno.readTextFile(`${root}README.md`);
  await Deno.writeTextFile(
    `${outDir}/README.md`,
    // A line about JSR (its install line) keeps the JSR name.
    target === "npm"
      ? readme.split("\n").map((line) =>
        line.includes("jsr:") ? line : line.replaceAll(config.name, "fetchbase")
      ).join("\n")
      : readme,
  );
  await Deno.copyFile(`${root}LICENSE`, `${outDir}/LICENSE`);
  // The documents the README links to.
  for await (const doc of walk(`${root}docs`)) {
    if (!doc.endsWith(".md")) continue;
    const copy = `${outDir}/${doc.slice(root.length)}`;
    await Deno.mkdir(copy.slice(0, copy.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(doc, copy);
  }
  await Deno.mkdir(`${outDir}/bench`, { recursive: true });
  for (const doc of ["README.md", "HISTORY.md"]) {
    await Deno.copyFile(`${root}bench/${doc}`, `${outDir}/bench/${doc}`);
  }
  console.log(`${tag}: ${files.length} modules → ${outDir}`);
}

/**
 * Shrinks the npm bundle for Node, which compiles a module's whole text at each import with no
 * code cache: terser removes whitespace and comments and gives local variables and parameters
 * short names. What a stack trace or a `name` shows stays as written: top-level names, function
 * and class names (those a function or class takes from its variable too), methods and private
 * members (`#send`). `@__PURE__` annotations stay (a bundler downstream still drops unused
 * module-level values with them), the text is ASCII only (`\u2026`, not `…`: one non-ASCII
 * character makes V8 scan the whole file as two-byte text), and the source map is carried
 * through to the shipped sources. The build fails unless the result is the same program: the
 * same syntax tree, each binding in the same places, the same names wherever a name shows, and as
 * many annotations (`sameProgram`). Deno caches compiled code, so the JSR bundle is left
 * readable.
 */
export async function shrink(file: string): Promise<void> {
  const map = await Deno.readTextFile(`${file}.map`);
  const before = await Deno.readTextFile(file);
  const ast = await syntaxTree(before);
  // Not `module: true`, which would also rename top-level bindings.
  // `keep_fnames` also keeps a variable a function is assigned to (`const f = () => {}`).
  const mangle = {
    toplevel: false,
    keep_fnames: true,
    keep_classnames: true,
  };
  ast.figure_out_scope({ ...mangle, module: true });
  // terser keeps no other binding a function or class takes its name from (`cb = () => {}` as a
  // default, `f = () => {}`, `const C = class {}`): each is marked as terser marks an exported
  // binding (`MASK_EXPORT_DONT_MANGLE`), which it neither renames nor lets another name shadow.
  for (const def of namingBindings(ast)) def.export |= 1;
  ast.compute_char_frequency(mangle);
  // Locals only: terser's `mangle` option would also rename private members.
  ast.mangle_names(mangle);
  const out = await minify(ast, {
    compress: false,
    mangle: false,
    module: true,
    format: { comments: false, preserve_annotations: true, ascii_only: true },
    // terser carries the sources' text over only from a text it parsed itself: put back below.
    sourceMap: { content: map, url: file.slice(file.lastIndexOf("/") + 1) + ".map" },
  });
  if (out.code === undefined || typeof out.map !== "string") {
    throw new Error(`could not shrink ${file}`);
  }
  const input = JSON.parse(map) as { sources: string[]; sourcesContent?: (string | null)[] };
  const output = JSON.parse(out.map) as { sources: string[]; sourcesContent?: (string | null)[] };
  // The sources' text is carried over when the map had it (the package ships the sources too).
  delete output.sourcesContent;
  if (input.sourcesContent) {
    const text = input.sourcesContent;
    output.sourcesContent = output.sources.map((s) => text[input.sources.indexOf(s)] ?? null);
    if (output.sourcesContent.includes(null)) throw new Error(`a source of ${file} has no text`);
  }
  const annotations = (code: string) => code.match(/[@#]__PURE__/g)?.length ?? 0;
  if (
    !sameProgram(await syntaxTree(before), await syntaxTree(out.code)) ||
    annotations(before) !== annotations(out.code)
  ) {
    throw new Error(`shrinking ${file} changed its program`);
  }
  await Deno.writeTextFile(file, out.code);
  await Deno.writeTextFile(`${file}.map`, JSON.stringify(output));
}

/** Node types whose function or class takes its name from the variable it is assigned to. */
const NAMED_BY_BINDING = /^(Arrow|Function|ClassExpression)$/;

/** Operators of an assignment that names the function or class it assigns (`x ??= () => {}`). */
const NAMING_OPERATOR = /^(=|\|\|=|&&=|\?\?=)$/;

/**
 * The binding a node gives a function or class its name from, if any: `const f = () => {}`, a
 * parameter's or a destructured binding's default (`cb = () => {}`), an assignment (`f = ...`,
 * `f ??= ...`). Such a binding's name is the function's `name` at run time.
 */
function namingBinding(node: TreeNode): unknown {
  const [target, value] = node.TYPE === "VarDef"
    ? [node.name, node.value]
    : (node.TYPE === "Assign" || node.TYPE === "DefaultAssign") &&
        NAMING_OPERATOR.test(node.operator)
    ? [node.left, node.right]
    : [];
  return value && NAMED_BY_BINDING.test(value.TYPE) ? target?.thedef : undefined;
}

/** The bindings of `ast` that name a function or class (see `namingBinding`). */
function namingBindings(ast: TreeNode): Set<TreeNode> {
  const out = new Set<TreeNode>();
  walkTree(ast, (node) => {
    const def = namingBinding(node);
    if (def) out.add(def);
  });
  return out;
}

/**
 * Fields of a node that are part of the program besides its type, literals and names: the
 * operator (`+`, `-=`, `typeof`, `++`), and what makes a function async or a generator, a member
 * static, a loop `for await`, a `yield` delegate, an access optional, a pattern an array.
 */
const FLAGS = [
  "operator",
  "async",
  "is_generator",
  "static",
  "await",
  "is_star",
  "optional",
  "is_array",
  "is_default",
  "phase",
] as const;

/** Node types whose symbol's name shows at run time (`fn.name`, a stack trace). */
const NAMED_DECLARATION = /^Symbol(Defun|Lambda|DefClass|Class|Method)$/;

// terser's syntax tree, as far as these checks read it.
// deno-lint-ignore no-explicit-any
type TreeNode = any;

/** The module's syntax tree, read by terser, with its scopes resolved. */
export async function syntaxTree(code: string): Promise<TreeNode> {
  // `ast` and `code` are output options terser reads but does not declare.
  const options = {
    compress: false,
    mangle: false,
    module: true,
    format: { ast: true, code: false },
  };
  const out = await minify(code, options as Parameters<typeof minify>[1]);
  const ast = (out as { ast?: TreeNode }).ast;
  if (ast === undefined) throw new Error("terser gave no syntax tree");
  ast.figure_out_scope({ module: true });
  return ast;
}

/** Calls `visit` on every node of `ast`, parents first, in source order. */
function walkTree(ast: TreeNode, visit: (node: TreeNode) => void): void {
  ast.walk({
    _visit(node: TreeNode, descend?: () => void) {
      visit(node);
      descend?.call(node);
      return true;
    },
    push() {},
    pop() {},
    parent() {},
  });
}

/**
 * Whether two modules are the same program up to the names of their local variables: the same
 * nodes in the same order, the same literals (regular expressions' source and flags included),
 * properties, keys, operators and flags (`async`, `static`, `for await`, ...: `FLAGS`), each
 * binding used in the same places (numbered by first use), and the same name for every top-level
 * or undeclared binding and every function, class or method, including a binding a function or
 * class takes its name from (`const f = () => {}`, a default `cb = () => {}`, `f = class {}`).
 */
export function sameProgram(a: TreeNode, b: TreeNode): boolean {
  const shape = (ast: TreeNode): string[] => {
    const ids = new Map<unknown, number>();
    const bound = new Set<unknown>();
    const out: string[] = [];
    walkTree(ast, (node) => {
      const naming = namingBinding(node);
      if (naming) bound.add(naming);
      const parts: unknown[] = [node.TYPE];
      for (const flag of FLAGS) {
        const v = node[flag];
        if (v !== undefined && v !== null && typeof v !== "object") parts.push(flag, v);
      }
      const value = node.value;
      if (value === null || typeof value !== "object") parts.push(value);
      // terser's regular expression literal: `{ source, flags }`.
      else if (node.TYPE === "RegExp") parts.push(value.source, value.flags);
      if (typeof node.property === "string") parts.push(node.property);
      if (typeof node.key === "string") parts.push(node.key);
      const def = node.thedef;
      if (def) {
        if (!ids.has(def)) ids.set(def, ids.size);
        parts.push(ids.get(def));
        if (
          def.undeclared || def.global || bound.has(def) ||
          NAMED_DECLARATION.test(def.orig?.[0]?.TYPE ?? "")
        ) parts.push(node.name);
      } else if (typeof node.name === "string") {
        parts.push(node.name);
      }
      out.push(JSON.stringify(parts));
    });
    return out;
  };
  const x = shape(a);
  const y = shape(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
