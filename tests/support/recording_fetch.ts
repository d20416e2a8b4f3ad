/**
 * A fetch that records every request and answers from a script, for wire
 * tests. Bodies are read fully (streams included) so tests can inspect them.
 */

/** One recorded request. */
export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body as bytes, or null when the request had none. */
  bytes: Uint8Array | null;
  /** The body as text, or null. */
  text: string | null;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
  /** The `duplex` option, to check streaming. */
  duplex: string | undefined;
  /** Whether the body was a ReadableStream when handed to fetch. */
  streamed: boolean;
  signal: AbortSignal | null;
  /** The `redirect` option as given to fetch (undefined when not set). */
  redirect: RequestRedirect | undefined;
}

/** Answers one request. */
export type Responder = (req: RecordedRequest, index: number) => Response | Promise<Response>;

/** JSON response helper. */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { ...init, headers });
}

/** A recording fetch with its log. */
export interface Recorder {
  fetch: typeof fetch;
  requests: RecordedRequest[];
  /** The only request; throws unless exactly one was made. */
  readonly only: RecordedRequest;
  /** The last request. */
  readonly last: RecordedRequest;
}

/**
 * Creates a recording fetch. `script` is a responder, or a list of responses
 * (or responders) used in order; by default every request answers 200 `{}`.
 */
export function recordingFetch(
  script?: Responder | Array<Response | Responder>,
): Recorder {
  const requests: RecordedRequest[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const rawBody = init?.body;
    const streamed = rawBody instanceof ReadableStream;
    let bytes: Uint8Array | null = null;
    if (request.body) bytes = new Uint8Array(await request.arrayBuffer());
    else if (typeof rawBody === "string") bytes = new TextEncoder().encode(rawBody);
    const text = bytes === null ? null : new TextDecoder().decode(bytes);
    const rec: RecordedRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: new Headers(init?.headers ?? request.headers),
      bytes,
      text,
      json: () => JSON.parse(text ?? ""),
      duplex: (init as { duplex?: string } | undefined)?.duplex,
      streamed,
      signal: init?.signal ?? null,
      redirect: init?.redirect,
    };
    const index = requests.length;
    requests.push(rec);
    if (script === undefined) return jsonResponse({});
    if (typeof script === "function") return await script(rec, index);
    const step = script[Math.min(index, script.length - 1)];
    if (step === undefined) return jsonResponse({});
    return typeof step === "function" ? await step(rec, index) : step.clone();
  };
  return {
    fetch: fetchImpl as typeof fetch,
    requests,
    get only() {
      if (requests.length !== 1) throw new Error(`expected 1 request, got ${requests.length}`);
      return requests[0];
    },
    get last() {
      const r = requests.at(-1);
      if (!r) throw new Error("no request recorded");
      return r;
    },
  };
}
