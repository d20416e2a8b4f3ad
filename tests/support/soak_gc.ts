/**
 * Run by tests/soak_test.ts as `deno run -A --v8-flags=--expose-gc tests/support/soak_gc.ts
 * <any|noany> <count>`: streamed downloads from a local server through one long-lived signal,
 * read to the end, cancelled, or left unread, then garbage collected. Prints, as JSON, how many
 * of each kind's streams were collected, and how many of the unread ones once the signal aborted.
 * `noany` removes `AbortSignal.any`, as in runtimes before it (Node 20.0 to 20.2, Safari 17.3).
 */
import { createClient } from "../../client.ts";

const [mode, countArg] = Deno.args;
const count = Number(countArg);
if (mode === "noany") (AbortSignal as unknown as { any?: unknown }).any = undefined;
const gc = (globalThis as unknown as { gc: () => void }).gc;
const body = new Uint8Array(16 * 1024);
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(body),
);
const client = createClient(`http://127.0.0.1:${server.addr.port}`, "anon-key");
const app = new AbortController();

async function collectedAfterGc(counter: { n: number }): Promise<number> {
  for (let i = 0; i < 8; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return counter.n;
}

const out: Record<string, number> = {};
for (const kind of ["read", "cancelled", "unread"]) {
  const counter = { n: 0 };
  const registry = new FinalizationRegistry(() => counter.n++);
  for (let i = 0; i < count; i++) {
    const r = await client.storage.downloadStream("b", "k", { signal: app.signal });
    if (!r.ok) throw new Error(r.error.message);
    registry.register(r.value.stream, i);
    if (kind === "read") await new Response(r.value.stream).arrayBuffer();
    else if (kind === "cancelled") await r.value.stream.cancel();
  }
  out[kind] = await collectedAfterGc(counter);
  if (kind === "unread") {
    app.abort();
    out.unreadAfterAbort = await collectedAfterGc(counter);
  }
}
console.log(JSON.stringify(out));
await server.shutdown();
Deno.exit(0);
