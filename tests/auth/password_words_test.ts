// A password is often a word, and GoTrue's own error words hold it: redacting it there broke the
// error code an app branches on (`weak_***`) and showed in the log where the password stood. The
// password is redacted as a body echoes it (its JSON string), found by reading GoTrue's errors
// (internal/api/errors.go, user.go) against the client.
import assert from "node:assert/strict";
import { makeAuth, TOKEN } from "./_helpers.ts";
import { jsonResponse } from "../support/recording_fetch.ts";

Deno.test("GoTrue's error code, message and reasons survive a password that is one of their words", async () => {
  const weak = () =>
    jsonResponse({
      code: "weak_password",
      message: "Password should be at least 12 characters. Password is known to be weak.",
      weak_password: { reasons: ["length", "pwned"] },
    }, { status: 422 });
  for (const password of ["password", "length", "characters"]) {
    const { auth } = makeAuth(weak);
    const e = (await auth.signUpWithEmail("a@example.test", password)).errorOrNull()!;
    assert.equal(e.code, "weak_password", password);
    assert.equal(e.details, "length, pwned", password);
    assert.equal(
      e.message,
      "Password should be at least 12 characters. Password is known to be weak.",
      password,
    );
  }
  const same = () =>
    jsonResponse({
      code: "same_password",
      message: "New password should be different from the old password.",
    }, { status: 422 });
  const { auth } = makeAuth(same);
  const e = (await auth.updateUser(TOKEN, { password: "password" })).errorOrNull()!;
  assert.equal(e.code, "same_password");
  assert.equal(e.message, "New password should be different from the old password.");
});

Deno.test("a password a gateway echoes with the body is still redacted, whatever its characters", async () => {
  for (const password of ["password", 'a "quoted" pass\\word', "päss wörd ✓"]) {
    const { auth } = makeAuth((req) =>
      new Response(`Blocked request body: ${req.text}`, { status: 403 })
    );
    const e = (await auth.signInWithEmail("a@example.test", password)).errorOrNull()!;
    const shown = `${e.message} ${JSON.stringify(e)} ${String(e)}`;
    assert.ok(!shown.includes(JSON.stringify(password)), password);
    assert.match(e.message, /:\*\*\*,"gotrue_meta_security"/);
  }
});
