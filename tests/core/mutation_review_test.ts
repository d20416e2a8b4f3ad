// Transport and client behaviour a mutation review found no test pinning (each mutant of it passed
// the suite): a POST answered 301/302, an answer of status 0, the excerpt of a 2xx body that is
// not JSON, an error body cut at its cap, and what the client keeps of its URL.
import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createDatabaseClient } from "../../database/mod.ts";
import { jsonResponse, recordingFetch, type Responder } from "../support/recording_fetch.ts";

const KEY = "anon-key-0123456789";
const clientOver = (answer: Responder, url = "https://p.example") => {
  const rec = recordingFetch(answer);
  return { client: createBaseClient(url, KEY, { fetch: rec.fetch }), rec };
};

Deno.test("a POST answered 301 or 302 (same origin) is followed as a GET without its body or content headers, as fetch does", async () => {
  for (const status of [301, 302]) {
    const { client, rec } = clientOver((_r, n) =>
      n === 0
        ? new Response(null, { status, headers: { location: "/rest/v1/elsewhere" } })
        : jsonResponse({})
    );
    const r = await client.request({
      method: "POST",
      area: "rest",
      path: "/rpc/f",
      json: { a: 1 },
    });
    assert.ok(r.ok, String(r.errorOrNull()));
    assert.equal(rec.requests.length, 2);
    const hop = rec.requests[1];
    assert.equal(hop.method, "GET", `${status}`);
    assert.equal(hop.url.pathname, "/rest/v1/elsewhere");
    assert.equal(hop.text, null);
    assert.equal(hop.headers.has("content-type"), false);
  }
});

Deno.test("an answer of status 0 (an opaque response of a no-cors fetch) is refused as NETWORK, not read as an HTTP error", async () => {
  const opaque = () => {
    const r = new Response(null);
    Object.defineProperty(r, "status", { value: 0 });
    Object.defineProperty(r, "ok", { value: false });
    Object.defineProperty(r, "type", { value: "opaque" });
    return r;
  };
  const { client } = clientOver(opaque);
  const e = (await client.request({ area: "rest", path: "/t", retry: false })).errorOrNull();
  assert.equal(e?.category, "NETWORK");
  assert.equal(e?.status, null);
});

Deno.test("a 2xx body that is not JSON fails as DECODE quoting at most 80 characters of it", async () => {
  const page = "<html>" + "x".repeat(500) + "</html>";
  const { client } = clientOver(() =>
    new Response(page, { headers: { "content-type": "application/json" } })
  );
  const e = (await client.request({ area: "rest", path: "/t" })).errorOrNull();
  assert.equal(e?.category, "DECODE");
  const excerpt = e!.message.replace(/^Response is not valid JSON: /, "");
  assert.equal(excerpt, page.slice(0, 80));
});

Deno.test("an error body cut at its cap (1 MiB) is not read as JSON, even when its first part would parse", async () => {
  const body = '{"message":"from a cut body","code":"X1"}' + " ".repeat(1_100_000) + "tail";
  const { client } = clientOver(() =>
    new Response(body, { status: 500, headers: { "content-type": "application/json" } })
  );
  const e = (await client.request({ area: "rest", path: "/t", retry: false })).errorOrNull();
  assert.equal(e?.status, 500);
  assert.equal(e?.code, null);
  assert.notEqual(e?.message, "from a cut body");
});

Deno.test("the client keeps its URL's origin and path: a query, a fragment and user-info are dropped", async () => {
  const { client, rec } = clientOver(
    () => jsonResponse([]),
    "https://user:pw@p.example/base/?ref=dash#top",
  );
  assert.equal(client.url, "https://p.example/base");
  await createDatabaseClient(client).select("todos");
  const sent = rec.requests[0].url;
  assert.equal(sent.pathname, "/base/rest/v1/todos");
  assert.equal(sent.username, "");
  assert.equal(sent.searchParams.get("ref"), null);
});

Deno.test("an error body's message is taken from msg first, then message, then error_description", async () => {
  const bodies: Array<[Record<string, unknown>, string]> = [
    [
      { error_code: "weak_password", msg: "Password is too weak", message: "Bad Request" },
      "Password is too weak",
    ],
    [{ message: "From message", error_description: "From description" }, "From message"],
    [{ error: "invalid_grant", error_description: "From description" }, "From description"],
  ];
  for (const [body, expected] of bodies) {
    const { client } = clientOver(() => jsonResponse(body, { status: 400 }));
    const r = await client.request({ method: "POST", area: "auth", path: "/signup", json: {} });
    assert.equal(r.errorOrNull()?.message, expected);
  }
});
