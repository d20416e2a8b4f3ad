/**
 * The cancellation flow, runtime-neutral (see `helpers.ts`): a call given a long
 * `AbortSignal.timeout` completes; a call to a route that never answers (`__slow`), given a short
 * one, ends `CANCELLED` with the signal's reason (a `TimeoutError`) as cause; the client's own
 * `timeout` option ends it `TIMEOUT`.
 */
import type { Client } from "../../../client.ts";
import { type Json, said } from "./helpers.ts";

/** Runs the flow with `client` (signed in); `now` is the runtime's clock in milliseconds. */
export async function abortFlow(client: Client, now: () => number): Promise<Json> {
  const out: Json = {};
  const health = await client.auth.getHealth({ signal: AbortSignal.timeout(5_000) });
  out.longSignal = said(health);
  let started = now();
  const slow = await client.database.select("__slow", { signal: AbortSignal.timeout(300) });
  out.signalTimeout = slow.ok ? "ok" : {
    category: slow.error.category,
    cause: (slow.error.cause as { name?: string } | undefined)?.name ?? null,
    withinMs: now() - started < 3_000,
  };
  started = now();
  const timed = await client.database.select("__slow", { timeout: 300 });
  out.optionTimeout = timed.ok
    ? "ok"
    : { category: timed.error.category, withinMs: now() - started < 3_000 };
  return out;
}
