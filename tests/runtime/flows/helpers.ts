/**
 * What the runtime flows (`sessions.ts`, `abort.ts`, `database.ts`, `storage.ts`) share: their
 * result type and the small helpers they report with. Runtime-neutral: the browser page
 * (`../browser/flows.ts`) and the Worker (`../workers/flows_worker.ts`) bundle it.
 */

/** A flow's JSON result. */
export type Json = Record<string, unknown>;

/** A result as `ok` or `category: message`. */
export const said = (r: { ok: boolean; error?: { category: string; message: string } }): string =>
  r.ok ? "ok" : `${r.error!.category}: ${r.error!.message}`;

/** Whether two byte arrays hold the same bytes. */
export const same = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** Reads a stream to its end chunk by chunk and joins the chunks. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) all.set(c, (at += c.length) - c.length);
  return all;
}
