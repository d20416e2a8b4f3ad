// A password is often a word, and GoTrue's error codes are made of words: redacting it there broke
// the code an app branches on (`weak_***` for the password "password", the one GoTrue's check
// exists for). The code is GoTrue's fixed vocabulary and keeps it; everything else an error shows
// has the password redacted in every form an echo gives it (found by reading GoTrue's errors,
// internal/api/errors.go and user.go, against the client, then by a review of that fix).
import assert from "node:assert/strict";
import { makeAuth, TOKEN } from "./_helpers.ts";
import { jsonResponse } from "../support/recording_fetch.ts";

Deno.test("GoTrue's error code survives a password that is one of its words", async () => {
  const weak = () =>
    jsonResponse({
      code: "weak_password",
      message: "Password should be at least 12 characters.",
      weak_password: { reasons: ["length"] },
    }, { status: 422 });
  for (const password of ["password", "length", "characters"]) {
    const { auth } = makeAuth(weak);
    const e = (await auth.signUpWithEmail("a@example.test", password)).errorOrNull()!;
    assert.equal(e.code, "weak_password", password);
    // The message and details are GoTrue's text, redacted where they hold the password.
    assert.ok(!`${e.message} ${e.details}`.includes(password), password);
  }
  const same = () =>
    jsonResponse({
      code: "same_password",
      message: "New password should be different from the old password.",
    }, { status: 422 });
  const { auth } = makeAuth(same);
  const e = (await auth.updateUser(TOKEN, { password: "password" })).errorOrNull()!;
  assert.equal(e.code, "same_password");
  assert.equal(e.message, "New *** should be different from the old ***.");
});

Deno.test("a password an error echoes is redacted in every form: raw, JSON-escaped, HTML, percent- and form-encoded, whitespace collapsed, cut", async () => {
  const passwords = [
    "hunter22secret",
    'a "quoted" pass\\word',
    "päss wörd ✓",
    "two  spaces\there",
    "Tom&Jerry<3>1999'!",
    "Winter2024!",
  ];
  const html = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");
  const form = (pw: string) => new URLSearchParams({ p: pw }).toString().slice(2);
  const echoes: Array<[string, (body: string, pw: string) => Response]> = [
    ["JSON body echo", (body) => new Response(`Blocked request body: ${body}`, { status: 403 })],
    [
      "HTML-escaped echo",
      (body) =>
        new Response(`<pre>${html(body)}</pre>`, {
          status: 403,
          headers: { "content-type": "text/html" },
        }),
    ],
    ["form-encoded echo", (_b, pw) => new Response(`ARGS:password=${form(pw)}`, { status: 403 })],
    [
      "percent-encoded echo",
      (_b, pw) => new Response(`GET /?p=${encodeURIComponent(pw)}`, { status: 400 }),
    ],
    [
      "JSON error naming it",
      (_b, pw) =>
        jsonResponse({ message: "blocked", details: pw, hint: `was ${pw}` }, { status: 400 }),
    ],
    [
      "excerpt cut within it",
      (_b, pw) => new Response(`${"x".repeat(195)}${pw}${"y".repeat(50)}`, { status: 502 }),
    ],
    [
      "excerpt cut within its HTML form",
      (_b, pw) => new Response(`${"x".repeat(196)}${html(pw)}${"y".repeat(50)}`, { status: 502 }),
    ],
    ["a 2xx that is no JSON", (body) => new Response(`<p>${body}</p>`, { status: 200 })],
    [
      "a 2xx that is no JSON, cut within the HTML form",
      (_b, pw) => new Response(`${"x".repeat(75)}${html(pw)}`, { status: 200 }),
    ],
  ];
  for (const password of passwords) {
    for (const [label, echo] of echoes) {
      const { auth } = makeAuth((req) => echo(req.text ?? "", password));
      const e = (await auth.signInWithEmail("a@example.test", password)).errorOrNull()!;
      const shown = `${e.message} ${e.details} ${e.hint} ${JSON.stringify(e)} ${String(e)}`;
      const what = `${label}: ${password}`;
      for (
        const shape of [
          password,
          password.replace(/\s+/g, " "),
          JSON.stringify(password).slice(1, -1),
          html(password),
          encodeURIComponent(password),
          form(password),
          password.slice(0, 5),
          html(password).slice(0, 5),
        ]
      ) {
        assert.ok(!shown.includes(shape), `${what} shows ${shape}: ${shown}`);
      }
    }
  }
});

Deno.test("a custom fetch's error quoting the password is redacted from the failure's cause", async () => {
  const password = "hunter22secret";
  const { auth } = makeAuth(() => {
    throw new TypeError(
      `fetch failed for { password: '${password}' } (${encodeURIComponent(password)})`,
    );
  });
  const e = (await auth.signInWithEmail("a@example.test", password)).errorOrNull()!;
  assert.equal(e.category, "NETWORK");
  const cause = e.cause as Error;
  assert.ok(!`${e.message} ${cause.message} ${cause.stack}`.includes(password));
});

Deno.test("a code that is the password itself, or an echo that is no GoTrue word, is redacted", async () => {
  const password = "hunter22_secret";
  for (const code of [password, `bad ${password}`, `E:${encodeURIComponent(password)}`]) {
    const { auth } = makeAuth(() => jsonResponse({ code, message: "no" }, { status: 400 }));
    const e = (await auth.signInWithEmail("a@example.test", password)).errorOrNull()!;
    assert.ok(!String(e.code).includes(password), code);
    assert.match(String(e.code), /\*\*\*/, code);
  }
});

Deno.test("a code is given back only with a password that is a word of GoTrue's codes; another is never put in", async () => {
  const answer = (code: string) => () => jsonResponse({ code, message: "no" }, { status: 422 });
  const cases: Array<[string, Record<string, string>, string]> = [
    // Two passwords (found by a review): the new one is no code word and never fills the gap.
    ["weak_password", { password: "sunshine", currentPassword: "password" }, "weak_password"],
    [
      "current_password_invalid",
      { password: "letmeinnow", currentPassword: "current" },
      "current_password_invalid",
    ],
    // Both passwords are words: the one that makes GoTrue's code is put back (weak_current is none).
    ["weak_password", { password: "current", currentPassword: "password" }, "weak_password"],
    // A code that only looks broken, or that quotes a password, is none of GoTrue's: nothing is
    // put in, whatever its shape.
    ["upstream_***_error", { password: "password" }, "upstream_***_error"],
    ["bad_dragonfly", { password: "dragonfly" }, "bad_***"],
    [
      "current_password_invalid",
      { password: "password", currentPassword: "_invalid" },
      "current_******",
    ],
  ];
  for (const [code, update, shown] of cases) {
    const { auth } = makeAuth(answer(code));
    const e = (await auth.updateUser(TOKEN, update)).errorOrNull()!;
    assert.equal(e.code, shown, code);
  }
});

Deno.test("echoes with Go's and Python's \\u escapes and numeric entities are redacted", async () => {
  const cases: Array<[string, (pw: string) => string]> = [
    // Go's encoding/json writes <, > and & as \u003c, \u003e and \u0026.
    [
      "Tom&Jerry<3>1999",
      (pw) =>
        JSON.stringify({ password: pw }).replace(/&/g, "\\u0026").replace(/</g, "\\u003c").replace(
          />/g,
          "\\u003e",
        ),
    ],
    // Both escapes in one password: Go's and Python's each leave the other's characters.
    ["Tom&Jerry-pässwort1999", (pw) => JSON.stringify({ password: pw }).replace(/&/g, "\\u0026")],
    ["Tom&Jerry-pässwort1999", (pw) => JSON.stringify({ password: pw }).replace(/ä/g, "\\u00e4")],
    // Python's json.dumps writes anything not ASCII as \uXXXX.
    [
      "päss wörd 1999",
      (pw) =>
        JSON.stringify({ password: pw }).replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        ),
    ],
    // PHP's htmlspecialchars writes ' as &#039;, Go's html/template " as &#34;.
    [`it's "mine" 1999`, (pw) => `<p>${pw.replace(/'/g, "&#039;").replace(/"/g, "&#34;")}</p>`],
  ];
  for (const [password, echo] of cases) {
    const { auth } = makeAuth(() => new Response(`rejected ${echo(password)}`, { status: 403 }));
    const e = (await auth.signInWithEmail("a@example.test", password)).errorOrNull()!;
    assert.ok(!e.message.includes("1999"), `${password}: ${e.message}`);
  }
});
