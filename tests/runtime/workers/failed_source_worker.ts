/**
 * Uploads whose data fails while it is sent, from inside workerd: `/broken` a stream that errors
 * after 200,000 bytes, `/proxy` the Worker's own request body (its caller may leave mid-upload).
 * Each answers the upload's outcome as JSON (`ok`, `category`, `message`).
 */
import { createBaseClient } from "../../../core/client.ts";
import { createStorageClient } from "../../../storage/client.ts";

interface Env {
  FETCHBASE_URL: string;
  FETCHBASE_KEY: string;
}

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const storage = createStorageClient(createBaseClient(env.FETCHBASE_URL, env.FETCHBASE_KEY));
    const url = new URL(req.url);
    const key = url.searchParams.get("key")!;
    if (url.pathname === "/broken") {
      try {
        new ReadableStream();
      } catch {
        // workerd before 2022-11-30 makes no stream of JavaScript (the upload can get none).
        return Response.json({ constructs: false });
      }
    }
    let sent = 0;
    const data = url.pathname === "/proxy" ? req.body! : new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= 200_000) return c.error(new Error("the source broke"));
        c.enqueue(new Uint8Array(50_000).fill(7));
        sent += 50_000;
      },
    });
    const r = await storage.upload("b", key, data, { upsert: true });
    return Response.json({
      ok: r.ok,
      category: r.ok ? null : r.error.category,
      message: r.ok ? null : r.error.message,
    });
  },
};
