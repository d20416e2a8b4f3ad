import assert from "node:assert/strict";
import { createBaseClient } from "../../core/client.ts";
import { createStorageClient, listPaginator } from "../../storage/mod.ts";
import { localUser } from "../support/local_user.ts";

const setup = () => localUser("files@example.test");

Deno.test("storage flow: round trips (binary, empty, unicode path), 409, move/copy, delete-many, paginator, signed URL", async () => {
  const { server, client, storage, apiKey } = await setup();
  try {
    assert.ok((await storage.createBucket("docs", "docs")).ok);
    assert.equal((await storage.createBucket("docs", "docs")).errorOrNull()?.category, "CONFLICT");
    const binary = new Uint8Array(256).map((_, i) => i);
    assert.equal(
      (await storage.upload("docs", "bin/all-bytes.bin", binary)).getOrThrow(),
      "docs/bin/all-bytes.bin",
    );
    assert.deepEqual(
      (await storage.downloadBytes("docs", "bin/all-bytes.bin")).getOrThrow(),
      binary,
    );
    await storage.upload("docs", "empty.txt", new Uint8Array(0));
    assert.equal((await storage.downloadBytes("docs", "empty.txt")).getOrThrow().length, 0);
    const path = "ünï cödé/ファイル #1?.txt";
    await storage.upload("docs", path, "héllo wörld", { contentType: "text/plain; charset=utf-8" });
    assert.equal((await storage.download("docs", path)).getOrThrow(), "héllo wörld");
    assert.equal((await storage.info("docs", path)).getOrThrow().size, 13);
    assert.equal((await storage.exists("docs", path)).getOrThrow(), true);
    assert.equal((await storage.exists("docs", "nope.txt")).getOrThrow(), false);

    const dup = await storage.upload("docs", "empty.txt", "again");
    assert.equal(dup.errorOrNull()?.status, 409);
    assert.ok((await storage.upload("docs", "empty.txt", "again", { upsert: true })).ok);
    assert.equal((await storage.download("docs", "empty.txt")).getOrThrow(), "again");

    assert.ok((await storage.copy("docs", "empty.txt", "copy.txt")).ok);
    assert.ok((await storage.move("docs", "copy.txt", "moved/copy.txt")).ok);
    assert.equal((await storage.exists("docs", "copy.txt")).getOrThrow(), false);
    assert.equal((await storage.download("docs", "moved/copy.txt")).getOrThrow(), "again");
    assert.equal(
      (await storage.download("docs", "empty.txt")).getOrThrow(),
      "again",
      "copy keeps the source",
    );

    for (let i = 0; i < 5; i++) await storage.upload("docs", `page/f${i}.txt`, String(i));
    const pages = listPaginator(storage, "docs", { prefix: "page", pageSize: 2 });
    while (!pages.isEnd.value) assert.ok((await pages.loadNext()).ok);
    assert.deepEqual(pages.items.value.map((f) => f.name), [
      "f0.txt",
      "f1.txt",
      "f2.txt",
      "f3.txt",
      "f4.txt",
    ]);

    const removed =
      (await storage.deleteObjects("docs", ["page/f0.txt", "page/f1.txt", "page/missing.txt"]))
        .getOrThrow();
    assert.deepEqual(removed.map((f) => f.name).sort(), ["page/f0.txt", "page/f1.txt"]);

    const url = (await storage.createSignedUrl("docs", path, 60)).getOrThrow();
    const fetched = await fetch(url);
    assert.equal(await fetched.text(), "héllo wörld");
    const dl = (await storage.createSignedUrl("docs", path, 60, { fileName: "x.txt" }))
      .getOrThrow();
    const attachment = await fetch(dl);
    assert.match(
      attachment.headers.get("content-disposition") ?? "",
      /attachment; filename=x\.txt; filename\*=UTF-8''x\.txt/,
    );
    await attachment.body?.cancel();

    const token = (await storage.createSignedUploadUrl("docs", "signed/up.txt")).getOrThrow();
    const anon = createStorageClient(createBaseClient(server.url, apiKey));
    assert.equal(
      (await anon.uploadToSignedUrl("docs", "signed/up.txt", token, "via token")).getOrThrow(),
      "docs/signed/up.txt",
    );
    assert.equal((await storage.download("docs", "signed/up.txt")).getOrThrow(), "via token");

    const stream =
      (await storage.downloadStream("docs", "bin/all-bytes.bin", { range: { start: 10, end: 12 } }))
        .getOrThrow();
    assert.equal(stream.status, 206);
    assert.deepEqual(
      new Uint8Array(await new Response(stream.stream).arrayBuffer()),
      new Uint8Array([10, 11, 12]),
    );

    assert.equal((await storage.deleteBucket("docs")).errorOrNull()?.category, "CONFLICT");
    assert.ok((await storage.clearBucket("docs")).ok);
    assert.ok((await storage.deleteBucket("docs")).ok);
    assert.equal(client.accessToken !== null, true);
  } finally {
    await server.close();
  }
});

Deno.test("a 512 MiB ReadableStream upload streams: process memory stays far below the body size", async () => {
  // Measured in a process of its own: tests running in parallel share this one's RSS.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL("./_big_upload.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  assert.equal(r.key, "big/blob.bin");
  assert.equal(r.received, r.size);
  assert.ok(
    r.grown < 128 * 1024 * 1024,
    `RSS grew by ${(r.grown / 1048576).toFixed(1)} MiB for a 512 MiB body`,
  );
});
