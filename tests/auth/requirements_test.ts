/**
 * Requirements of the interface document that had no test able to fail:
 * `signUpWithPhone` sends `redirectTo` as `redirect_to`.
 *
 * GoTrue reads `redirect_to` from a header or the query string, never from a
 * JSON body (`getRedirectTo`: `r.Header.Get("redirect_to")`, else
 * `r.Form.Get("redirect_to")` after `ParseForm`, which does not parse JSON).
 * auth-js sends no redirect for a phone sign-up at all; for the same route,
 * `POST /signup`, it sends the email sign-up's redirect as the query parameter
 * `redirect_to`, and fetchbase must place the phone one the same way.
 */
import assert from "node:assert/strict";
import { jsonResponse, type RecordedRequest } from "../support/recording_fetch.ts";
import { authJs, BASE, dropNulls, makeAuth, SESSION } from "./_helpers.ts";

const A = `${BASE}/auth/v1`;
const REDIRECT = "https://app.example/after?x=1&y=2";

const theirs = () => authJs(() => jsonResponse(SESSION));

const query = (r: RecordedRequest) => [...r.url.searchParams.entries()].sort();

Deno.test("signUpWithPhone sends redirectTo as the redirect_to query parameter of POST /signup, never in the body", async () => {
  const { auth, rec } = makeAuth();
  const r = await auth.signUpWithPhone("+15550100", "pw", {
    redirectTo: REDIRECT,
    captchaToken: "cap",
  });
  assert.equal(r.getOrThrow().user.id, "u1");
  assert.equal(rec.only.method, "POST");
  assert.equal(rec.only.url.pathname, "/auth/v1/signup");
  assert.deepEqual(query(rec.only), [["redirect_to", REDIRECT]]);
  assert.equal(rec.only.url.href, `${A}/signup?redirect_to=${encodeURIComponent(REDIRECT)}`);
  const body = rec.only.json() as Record<string, unknown>;
  assert.equal("redirect_to" in body, false);
  assert.equal("redirectTo" in body, false);
  assert.deepEqual(body, {
    phone: "+15550100",
    password: "pw",
    data: {},
    channel: "sms",
    gotrue_meta_security: { captcha_token: "cap" },
  });

  // No redirect: no query at all.
  await auth.signUpWithPhone("+15550100", "pw");
  assert.deepEqual(query(rec.last), []);
});

Deno.test("conformance with @supabase/auth-js: signUpWithPhone's redirect_to sits where auth-js puts the /signup redirect, and the rest of the request matches its phone sign-up", async () => {
  // auth-js: where a /signup redirect goes (it has one for email sign-up only).
  const email = theirs();
  await email.client.signUp({
    email: "a@x.io",
    password: "pw",
    options: { emailRedirectTo: REDIRECT },
  });
  const theirRedirect = email.rec.only;
  assert.equal("redirect_to" in (theirRedirect.json() as object), false);

  // auth-js: the phone sign-up itself (no redirect option exists there).
  const phone = theirs();
  await phone.client.signUp({
    phone: "+15550100",
    password: "pw",
    options: { channel: "whatsapp", captchaToken: "cap" },
  });
  const theirPhone = phone.rec.only;

  const { auth, rec } = makeAuth();
  await auth.signUpWithPhone("+15550100", "pw", {
    redirectTo: REDIRECT,
    channel: "whatsapp",
    captchaToken: "cap",
  });
  const ours = rec.only;
  assert.equal(ours.method, theirRedirect.method);
  assert.equal(ours.url.pathname, theirRedirect.url.pathname);
  assert.deepEqual(query(ours), query(theirRedirect));
  assert.equal(ours.headers.get("redirect_to"), theirRedirect.headers.get("redirect_to"));
  assert.equal(ours.url.pathname, theirPhone.url.pathname);
  assert.deepEqual(dropNulls(ours.json()), dropNulls(theirPhone.json()));
  assert.equal(ours.headers.get("apikey"), theirPhone.headers.get("apikey"));
  assert.equal(ours.headers.get("authorization"), theirPhone.headers.get("authorization"));
});
