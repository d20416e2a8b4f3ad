// Findings of the spec audit of auth: password fields masked in renderings of
// an update request; malformed key ids and link options are Failures.
import assert from "node:assert/strict";
import { userUpdateRequest } from "../../auth/mod.ts";
import { jsonResponse } from "../support/recording_fetch.ts";
import { makeAuth, SESSION, TOKEN } from "./_helpers.ts";

Deno.test("userUpdateRequest masks both passwords when printed; the request body still carries them", async () => {
  const update = userUpdateRequest({
    password: "new-secret-pw",
    currentPassword: "old-secret-pw",
    data: { plan: "pro" },
  });
  for (
    const rendering of [
      String(update),
      Deno.inspect(update),
      Deno.inspect({ nested: update }),
    ]
  ) {
    assert.ok(!rendering.includes("new-secret-pw"), rendering);
    assert.ok(!rendering.includes("old-secret-pw"), rendering);
    assert.ok(rendering.includes("pro"), rendering);
  }
  const { auth, rec } = makeAuth(() => jsonResponse(SESSION.user));
  assert.ok((await auth.updateUser(TOKEN, update)).ok);
  const body = rec.only.json() as Record<string, unknown>;
  assert.equal(body.password, "new-secret-pw");
  assert.equal(body.current_password, "old-secret-pw");
});
