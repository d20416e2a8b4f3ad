/** redirectSecrets with a fragment (auth/_request.ts): third mutation review. */

import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createAuthClient } from "../../auth/mod.ts";

/** A gateway that quotes the request URL in its refusal. */
async function quoted(redirectTo: string): Promise<string> {
  const auth = createAuthClient(createBaseClient("https://p.example", "anon-key-0123456789", {
    retry: { maxAttempts: 1 },
    fetch: (input: RequestInfo | URL) =>
      Promise.resolve(new Response(`<p>Blocked: ${String(input)}</p>`, { status: 403 })),
  }));
  const r = await auth.resetPasswordForEmail("a@b.example", { redirectTo });
  const e = r.errorOrNull()!;
  assert.match(e.message, /redirect_to=/);
  return `${e.message} ${e.details ?? ""}`;
}

// A05: with a fragment, the query's credentials are still hidden.
Deno.test("a redirectTo with a fragment still hides the credentials of its query", async () => {
  const shown = await quoted("https://app.example/cb?state=qstate77#tab=2");
  assert.ok(!shown.includes("qstate77"), shown);
});

// A01: a redirectTo that is a fragment only (`#...`) hides its first pair too.
Deno.test("a redirectTo that starts with '#' hides its first credential", async () => {
  const shown = await quoted("#access_token=lead-secret-5&x=1");
  assert.ok(!shown.includes("lead-secret-5"), shown);
});

Deno.test("credentials holding !'()* are hidden as the request's query carries them, and pairs after a second '#' too", async () => {
  const shown = await quoted("https://app.example/cb#token=Ab1(c)!d*e#state=late-st4te");
  assert.ok(!shown.includes("Ab1"), shown);
  assert.ok(!shown.includes("late-st4te"), shown);
});
