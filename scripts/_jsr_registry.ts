/**
 * A local stand-in for the JSR registry, serving one package directory (the
 * output of `build_jsr.ts`) as one version of that package. Deno reads a
 * registry from `JSR_URL`: with it set to this server's URL, `jsr:` imports of
 * the package download and verify its files as from jsr.io (which these
 * machines cannot reach). It answers the three requests Deno makes: the
 * package's `meta.json` (its versions), the version's `<version>_meta.json`
 * (every file's size and SHA-256, and the exports), and the files themselves.
 * Everything else is a 404.
 *
 * Used by the JSR runtime test and the cold-start script; not published.
 *
 * @module
 */

/** A running registry: its URL (for `JSR_URL`) and how to stop it. */
export interface JsrRegistry extends AsyncDisposable {
  /** The registry's base URL, ending in `/`. */
  readonly url: string;
  /** Paths requested so far, in order (the package's files as `/<path>`). */
  readonly requested: readonly string[];
  /** Stops the server. */
  close(): Promise<void>;
}

async function* walk(dir: string, rel = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${dir}${rel}`)) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory) yield* walk(dir, path);
    else if (entry.isFile) yield path;
  }
}

async function sha256Hex(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Serves the package in `dir` (its `deno.json` names it and gives its version
 * and exports) on a free loopback port.
 *
 * @param dir The package directory.
 * @returns The running registry.
 */
export async function serveJsrPackage(dir: string): Promise<JsrRegistry> {
  const config = JSON.parse(await Deno.readTextFile(`${dir}/deno.json`)) as {
    name: string;
    version: string;
    exports: Record<string, string>;
  };
  const [scope, name] = config.name.slice(1).split("/");
  const manifest: Record<string, { size: number; checksum: string }> = {};
  const contents = new Map<string, Uint8Array<ArrayBuffer>>();
  for await (const path of walk(dir)) {
    const data = await Deno.readFile(`${dir}${path}`);
    manifest[path] = { size: data.length, checksum: `sha256-${await sha256Hex(data)}` };
    contents.set(path, data);
  }
  const base = `/${config.name}/`;
  const requested: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    const rest = path.startsWith(base) ? path.slice(base.length) : "";
    if (rest === "meta.json") {
      return Response.json({
        scope,
        name,
        latest: config.version,
        versions: { [config.version]: {} },
      });
    }
    if (rest === `${config.version}_meta.json`) {
      return Response.json({ manifest, exports: config.exports });
    }
    const file = rest.startsWith(`${config.version}/`)
      ? rest.slice(config.version.length)
      : undefined;
    const data = file === undefined ? undefined : contents.get(file);
    if (file === undefined || data === undefined) return new Response("not found", { status: 404 });
    requested.push(file);
    return new Response(data);
  });
  const close = () => server.shutdown();
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    requested,
    close,
    [Symbol.asyncDispose]: close,
  };
}
