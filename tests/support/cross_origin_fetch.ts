/**
 * A fetch that behaves as a browser's does for a page on another origin than the server's
 * (the Fetch standard's CORS protocol, simplified): a request that is not "simple" (a method
 * other than GET, HEAD, POST, or a header that is not CORS-safelisted, such as `apikey`,
 * `authorization`, `prefer`, `range`) is preceded by a preflight, and fails as a network error
 * (`TypeError: Failed to fetch`) unless the preflight allows its method and headers; every
 * answer without an `Access-Control-Allow-Origin` for the page fails the same way; an answer
 * keeps only the CORS-safelisted response headers and those listed in
 * `Access-Control-Expose-Headers`, as a page sees it.
 */

/** The response headers a page always sees. */
const SAFELISTED_RESPONSE = new Set([
  "cache-control",
  "content-language",
  "content-length",
  "content-type",
  "expires",
  "last-modified",
  "pragma",
]);

/** Request headers sent without a preflight (their values are not checked here). */
const SAFELISTED_REQUEST = new Set([
  "accept",
  "accept-language",
  "content-language",
  "content-type",
]);

const SIMPLE_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

/** What a cross-origin fetch did, for assertions. */
export interface CrossOriginLog {
  /** Each preflight: method and requested headers (sorted, lower case). */
  preflights: { method: string; headers: string[]; url: string }[];
  /** The requests refused by CORS, with the reason. */
  refused: string[];
}

const list = (value: string | null) =>
  (value ?? "").split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");

/**
 * A fetch for a page on `origin` that sends every request through `inner` (a server's `fetch`
 * handler, or the global fetch), applying CORS as a browser would.
 */
export function crossOriginFetch(
  origin: string,
  inner: (req: Request) => Response | Promise<Response>,
): { fetch: typeof fetch; log: CrossOriginLog } {
  const log: CrossOriginLog = { preflights: [], refused: [] };
  const refuse = (why: string): never => {
    log.refused.push(why);
    throw new TypeError(`Failed to fetch (${why})`);
  };
  const allowsOrigin = (res: Response) => {
    const allowed = res.headers.get("access-control-allow-origin");
    return allowed === "*" || allowed === origin;
  };
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const names = [...req.headers.keys()].map((k) => k.toLowerCase());
    const unsafe = names.filter((k) =>
      !SAFELISTED_REQUEST.has(k) ||
      (k === "content-type" && !SIMPLE_TYPES.test(req.headers.get(k) ?? ""))
    ).sort();
    const simpleMethod = ["GET", "HEAD", "POST"].includes(req.method);
    if (!simpleMethod || unsafe.length > 0) {
      const headers = new Headers({ origin, "access-control-request-method": req.method });
      if (unsafe.length > 0) headers.set("access-control-request-headers", unsafe.join(","));
      log.preflights.push({ method: req.method, headers: unsafe, url: req.url });
      const pre = await inner(new Request(req.url, { method: "OPTIONS", headers }));
      await pre.body?.cancel();
      if (pre.status < 200 || pre.status > 299) refuse(`preflight ${pre.status}`);
      if (!allowsOrigin(pre)) refuse("preflight without Access-Control-Allow-Origin");
      const methods = list(pre.headers.get("access-control-allow-methods"));
      if (!simpleMethod && !methods.includes(req.method.toLowerCase()) && !methods.includes("*")) {
        refuse(`method ${req.method} not allowed`);
      }
      const allowed = list(pre.headers.get("access-control-allow-headers"));
      for (const name of unsafe) {
        if (!allowed.includes(name) && !(allowed.includes("*") && name !== "authorization")) {
          refuse(`header ${name} not allowed`);
        }
      }
    }
    const headers = new Headers(req.headers);
    headers.set("origin", origin);
    // A stream body goes on as it is (`duplex`, which Deno's Request needs for one).
    const res = await inner(new Request(req, { headers, duplex: "half" } as RequestInit));
    if (!allowsOrigin(res)) {
      await res.body?.cancel();
      refuse(`answer ${res.status} without Access-Control-Allow-Origin`);
    }
    const exposed = list(res.headers.get("access-control-expose-headers"));
    const seen = new Headers();
    for (const [k, v] of res.headers) {
      if (k === "set-cookie") continue;
      if (SAFELISTED_RESPONSE.has(k) || exposed.includes(k) || exposed.includes("*")) {
        seen.append(k, v);
      }
    }
    return new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: seen,
    });
  };
  return { fetch: fetcher as typeof fetch, log };
}
