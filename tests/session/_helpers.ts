/** Shared fixtures of the session tests: a project, GoTrue session bodies, fake time. */

import FakeTimers from "@sinonjs/fake-timers";
import { createAuthClient } from "../../auth/client.ts";
import { createBaseClient } from "../../core/client.ts";
import { encodeBase64Url } from "../../core/encoding.ts";
import type { ServiceResult } from "../../core/result.ts";

export const BASE = "https://project.example.com";
export const KEY = "anon-key-0123456789";

/** A GoTrue session body whose tokens end in `n`; the user has two identities. */
export function sessionJson(
  n: number,
  o: { expires_in?: number; expires_at?: number | null } = {},
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    access_token: `access-${n}`,
    refresh_token: `refresh-${n}`,
    expires_in: o.expires_in ?? 3600,
    expires_at: o.expires_at === undefined ? now + (o.expires_in ?? 3600) : o.expires_at,
    token_type: "bearer",
    user: { id: "u1", email: "a@x.io", identities: [{ id: "i1" }, { id: "i2" }] },
  };
}

/** A fake clock (timers and Date) installed for the duration of `fn`. */
export type Clock = ReturnType<typeof FakeTimers.install>;

/** Runs `fn` with a fake clock starting at a fixed instant, then uninstalls it. */
export function withClock<T>(fn: (clock: Clock) => Promise<T>): Promise<T> {
  const clock = FakeTimers.install({
    toFake: ["setTimeout", "clearTimeout", "Date"],
    now: 1_800_000_000_000,
  });
  return fn(clock).finally(() => clock.uninstall());
}

/** A JSON response. */
export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A request the held server has not answered yet. */
export interface Held {
  method: string;
  path: string;
  body: string;
  release(answer: Response | Error): void;
}

/** A fetch whose answers wait until the test releases them. */
export function heldServer() {
  const held: Held[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const body = await req.text();
    return await new Promise<Response>((resolve, reject) => {
      held.push({
        method: req.method,
        path: new URL(req.url).pathname,
        body,
        release: (a) => a instanceof Error ? reject(a) : resolve(a),
      });
    });
  };
  const client = createBaseClient(BASE, KEY, { fetch, retry: { maxAttempts: 1 }, timeout: 0 });
  const find = (part: string) => held.find((h) => h.path.endsWith(part))!;
  return { held, client, auth: createAuthClient(client), find };
}

/** An HS256-labelled JWT carrying `payload` (signature `sig`: its claims are read, not verified). */
export function jwt(payload: Record<string, unknown>): string {
  const part = (o: unknown) => encodeBase64Url(JSON.stringify(o));
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(payload)}.sig`;
}

/** Starts an operation and notes when (fake time since its start) it settled, and how. */
export function track<T>(clock: Clock, start: () => Promise<ServiceResult<T>>) {
  const t0 = clock.now;
  const out: { at: number; r: ServiceResult<T> | null } = { at: -1, r: null };
  const done = start().then((r) => {
    out.at = clock.now - t0;
    out.r = r;
  });
  return { out, done };
}

/**
 * A fetch over `fetch` that runs a hook, once, after the next answer arrives and before it is
 * handed back: what happens elsewhere while a grant is under way.
 */
export function duringAnswer(fetch: typeof globalThis.fetch) {
  let hook: (() => Promise<unknown>) | null = null;
  return {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const answer = await fetch(input, init);
      const run = hook;
      hook = null;
      await run?.();
      return answer;
    }) as typeof globalThis.fetch,
    /** Runs `fn` after the next answer. */
    next(fn: () => Promise<unknown>) {
      hook = fn;
    },
  };
}
