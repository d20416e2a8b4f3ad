import assert from "node:assert/strict";
import { createPaginator } from "../../core/paginator.ts";
import { failure, type ServiceResult, success } from "../../core/result.ts";
import { createBaseClient } from "../../core/client.ts";
import { createResumableUpload } from "../../storage/tus.ts";

Deno.test("paginator fetches nothing before loadNext, then pages until a short page", async () => {
  const calls: Array<[number, number]> = [];
  const data = [1, 2, 3, 4, 5];
  const p = createPaginator<number>(2, (offset, limit) => {
    calls.push([offset, limit]);
    return Promise.resolve(success(data.slice(offset, offset + limit)));
  });
  assert.equal(calls.length, 0);
  assert.deepEqual(p.items.value, []);
  await p.loadNext();
  await p.loadNext();
  assert.equal(p.isEnd.value, false);
  await p.loadNext();
  assert.equal(p.isEnd.value, true);
  const after = await p.loadNext();
  assert.deepEqual(after.getOrThrow(), []);
  assert.deepEqual(calls, [[0, 2], [2, 2], [4, 2]]);
  assert.deepEqual(p.items.value, data);
});

Deno.test("concurrent loadNext calls share one fetch; loading state flips", async () => {
  let calls = 0;
  let release = () => {};
  const p = createPaginator<string>(10, () => {
    calls++;
    return new Promise((r) => (release = () => r(success(["a"]))));
  });
  const states: boolean[] = [];
  p.isLoading.subscribe((v) => states.push(v));
  const a = p.loadNext();
  const b = p.loadNext();
  release();
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(calls, 1);
  assert.equal(ra, rb);
  assert.deepEqual(states, [false, true, false]);
});

Deno.test("a failure lands in error and the next loadNext retries the same page", async () => {
  let n = 0;
  const p = createPaginator<number>(2, (offset) => {
    n++;
    if (n === 1) {
      return Promise.resolve(failure({ message: "down", category: "SERVER", status: 503 }));
    }
    if (n === 2) throw new Error("thrown");
    return Promise.resolve(success([offset]));
  });
  const r = await p.loadNext();
  assert.equal(r.ok, false);
  assert.equal(p.error.value?.status, 503);
  await p.loadNext();
  assert.equal(p.error.value?.category, "UNKNOWN");
  await p.loadNext();
  assert.equal(p.error.value, null);
  assert.deepEqual(p.items.value, [0]);
});

Deno.test("pageSize must be a positive integer", () => {
  assert.throws(() => createPaginator(0, () => Promise.resolve(success([]))), RangeError);
  assert.throws(() => createPaginator(1.5, () => Promise.resolve(success([]))), RangeError);
});

Deno.test("one caller's abort does not cancel another caller's page; all aborting cancels the fetch", async () => {
  let seen: AbortSignal | undefined;
  let release = () => {};
  const p = createPaginator<number>(2, (_offset, _size, signal) => {
    seen = signal;
    return new Promise((resolve) => {
      release = () => resolve(success([1, 2]));
      signal?.addEventListener(
        "abort",
        () => resolve(failure({ message: "aborted", category: "CANCELLED" })),
      );
    });
  });
  const a = new AbortController();
  const first = p.loadNext({ signal: a.signal });
  const second = p.loadNext();
  a.abort();
  assert.equal((await first).errorOrNull()?.category, "CANCELLED");
  assert.equal(seen?.aborted, false, "the shared fetch goes on for the other caller");
  release();
  assert.deepEqual((await second).getOrThrow(), [1, 2]);
  assert.deepEqual(p.items.value, [1, 2]);

  const b = new AbortController();
  const c = new AbortController();
  const x = p.loadNext({ signal: b.signal });
  const y = p.loadNext({ signal: c.signal });
  b.abort();
  assert.equal(seen?.aborted, false);
  c.abort();
  assert.equal(seen?.aborted, true, "aborted once every caller has");
  assert.equal((await x).errorOrNull()?.category, "CANCELLED");
  assert.equal((await y).errorOrNull()?.category, "CANCELLED");
});

Deno.test("a caller without a signal never joins a fetch that every earlier caller aborted", async () => {
  let calls = 0;
  const p = createPaginator<string>(10, (_offset, _limit, signal) => {
    calls++;
    return new Promise((resolve) => {
      if (calls === 1) {
        // The first fetch ends only when aborted.
        signal?.addEventListener(
          "abort",
          () => resolve(failure({ message: "aborted", category: "CANCELLED" })),
        );
      } else resolve(success(["a"]));
    });
  });
  const ac = new AbortController();
  const a = p.loadNext({ signal: ac.signal });
  ac.abort();
  assert.equal((await a).errorOrNull()?.category, "CANCELLED");
  const b = await p.loadNext();
  assert.deepEqual(b.getOrThrow(), ["a"]);
  assert.equal(calls, 2);
});

Deno.test("a page that arrives after every caller aborted is not appended: no row twice, none skipped", async () => {
  const offsets: number[] = [];
  let releaseFirst = () => {};
  const p = createPaginator<number>(2, (offset) => {
    offsets.push(offset);
    const rows = [offset + 1, offset + 2];
    if (offsets.length === 1) return new Promise((r) => (releaseFirst = () => r(success(rows))));
    return Promise.resolve(success(rows));
  });
  const ac = new AbortController();
  const first = p.loadNext({ signal: ac.signal });
  ac.abort();
  assert.equal((await first).errorOrNull()?.category, "CANCELLED");
  releaseFirst(); // the abandoned fetch still answers
  await Promise.resolve();
  assert.deepEqual((await p.loadNext()).getOrThrow(), [1, 2]);
  assert.deepEqual((await p.loadNext()).getOrThrow(), [3, 4]);
  assert.deepEqual(p.items.value, [1, 2, 3, 4]);
  assert.deepEqual(offsets, [0, 0, 2]);
});

Deno.test("a late answer of a page fetch every caller gave up on changes no flow while a newer fetch runs; a hand-made Failure without error is DECODE", async () => {
  const delays = [40, 120];
  let n = 0;
  const p = createPaginator<number>(1, () => {
    const i = n++;
    // Ignores its signal and answers late.
    return new Promise((resolve) => setTimeout(() => resolve(success([i])), delays[i]));
  });
  const controller = new AbortController();
  const first = p.loadNext({ signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  assert.equal((await first).errorOrNull()?.category, "CANCELLED");
  const second = p.loadNext();
  await new Promise((resolve) => setTimeout(resolve, 60)); // the first fetch has answered by now
  assert.equal(p.isLoading.value, true, "the newer fetch is still running");
  assert.equal(p.error.value, null, "the abandoned fetch reports nothing");
  assert.deepEqual(p.items.value, []);
  assert.deepEqual((await second).getOrThrow(), [1]);
  assert.deepEqual(p.items.value, [1]);
  assert.equal(p.isLoading.value, false);

  const bare = createPaginator<number>(
    1,
    () => Promise.resolve({ ok: false } as unknown as ServiceResult<readonly number[]>),
  );
  const r = await bare.loadNext();
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.equal(bare.error.value?.category, "DECODE");
});

Deno.test("a listener's loadNext after a page landed fetches the next page (it joined the finished one); one while loading joins it", async () => {
  const offsets: number[] = [];
  const data = [0, 1, 2, 3, 4, 5, 6];
  const p = createPaginator<number>(3, (offset, limit) => {
    offsets.push(offset);
    return Promise.resolve(success(data.slice(offset, offset + limit)));
  });
  // Fill the screen: an items listener loads more while fewer than 6 are held.
  const nested: Array<Promise<unknown>> = [];
  const stopItems = p.items.subscribe((items) => {
    if (items.length > 0 && items.length < 6) nested.push(p.loadNext());
  });
  // A listener of isLoading going true joins the fetch it announces.
  const stopLoading = p.isLoading.subscribe((loading) => {
    if (loading) nested.push(p.loadNext());
  });
  await p.loadNext();
  await Promise.all(nested);
  stopItems();
  stopLoading();
  assert.deepEqual(offsets, [0, 3]);
  assert.deepEqual(p.items.value, [0, 1, 2, 3, 4, 5]);
  // The page is in before the end is said: a listener of isEnd counts every item.
  const counted: number[] = [];
  p.isEnd.subscribe((end) => {
    if (end) counted.push(p.items.value.length);
  });
  await p.loadNext();
  assert.deepEqual(counted, [7]);
  // A listener of isLoading gets the shared fetch's promise, with or without a signal.
  const q = createPaginator<number>(2, (offset) => Promise.resolve(success([offset])));
  const joined: Array<Promise<ServiceResult<readonly number[]>>> = [];
  q.isLoading.subscribe((loading) => {
    if (loading && joined.length === 0) {
      joined.push(q.loadNext(), q.loadNext({ signal: new AbortController().signal }));
    }
  });
  await q.loadNext();
  for (const r of await Promise.all(joined)) assert.deepEqual(r.getOrThrow(), [0]);
});

Deno.test("a failure then a success: an error listener's loadNext fetches the page after it, and the page stays in items", async () => {
  const offsets: number[] = [];
  let n = 0;
  const p = createPaginator<number>(2, (offset) => {
    offsets.push(offset);
    return Promise.resolve(
      ++n === 1 ? failure({ message: "down", category: "SERVER" }) : success([offset, offset + 1]),
    );
  });
  const nested: Array<Promise<unknown>> = [];
  p.error.subscribe((e) => {
    if (e === null && n === 2) nested.push(p.loadNext());
  });
  assert.equal((await p.loadNext()).ok, false);
  assert.deepEqual((await p.loadNext()).getOrThrow(), [0, 1]);
  await Promise.all(nested);
  assert.deepEqual(offsets, [0, 0, 2]);
  assert.deepEqual(p.items.value, [0, 1, 2, 3]);
  // The list handed out is frozen: its length is the next offset.
  assert.throws(() => (p.items.value as number[]).push(9), TypeError);
});

Deno.test("an error listener's retry fetches the page again (it was answered the old failure)", async () => {
  let n = 0;
  const p = createPaginator<number>(2, (offset) => {
    n++;
    return Promise.resolve(
      n === 1
        ? failure({ message: "down", category: "SERVER", status: 503 })
        : success([offset, offset + 1]),
    );
  });
  const retries: Array<Promise<{ ok: boolean }>> = [];
  p.error.subscribe((e) => {
    if (e && retries.length === 0) retries.push(p.loadNext());
  });
  assert.equal((await p.loadNext()).ok, false);
  assert.equal(retries.length, 1);
  assert.ok((await retries[0]).ok);
  assert.equal(n, 2);
  assert.deepEqual(p.items.value, [0, 1]);
  assert.equal(p.error.value, null);
});

Deno.test("a paginator's flows and an upload's progress cannot be set from outside (a write ended paging or moved its offset)", async () => {
  const offsets: number[] = [];
  const p = createPaginator<number>(2, (offset) => {
    offsets.push(offset);
    return Promise.resolve(success([offset, offset + 1]));
  });
  for (const flow of [p.items, p.isLoading, p.isEnd, p.error]) {
    assert.throws(() => {
      (flow as unknown as { value: unknown }).value = true;
    }, TypeError);
  }
  assert.equal(p.isEnd.value, false);
  await p.loadNext();
  assert.deepEqual(offsets, [0]);
  const seen: number[] = [];
  for await (const items of p.items) {
    seen.push(items.length);
    break;
  }
  assert.deepEqual(seen, [2]);
  const upload = createResumableUpload(
    createBaseClient("https://p.example", "anon-key"),
    "b",
    "o.bin",
    new Uint8Array(4),
  );
  assert.throws(() => {
    (upload.progress as unknown as { value: unknown }).value = { bytesUploaded: 4 };
  }, TypeError);
  assert.equal(upload.progress.value.bytesUploaded, 0);
  assert.throws(() => {
    (upload.progress.value as { bytesUploaded: number }).bytesUploaded = 4;
  }, TypeError);
});

Deno.test("every listener reads every flow as it now is: a listener filling the screen stops at the end (it fetched for ever)", async () => {
  for (const endOnShortPage of [true, false]) {
    const offsets: number[] = [];
    const data = [0, 1, 2, 3, 4];
    const p = createPaginator<number>(3, (offset, limit) => {
      offsets.push(offset);
      // Past 10 fetches the old loop would never end: a failure stops it.
      if (offsets.length > 10) {
        return Promise.resolve(failure({ message: "loop", category: "UNKNOWN" }));
      }
      return Promise.resolve(success(data.slice(offset, offset + limit)));
    }, { endOnShortPage });
    const loads: Array<Promise<unknown>> = [];
    const seenAtEnd: Array<[number, boolean, unknown]> = [];
    p.items.subscribe((items) => {
      if (items.length > 0 && items.length < 10 && !p.isEnd.value) loads.push(p.loadNext());
    });
    p.isEnd.subscribe((end) => {
      if (end) seenAtEnd.push([p.items.value.length, p.isLoading.value, p.error.value]);
    });
    await p.loadNext();
    while (loads.length > 0) await loads.shift();
    assert.deepEqual(offsets, endOnShortPage ? [0, 3] : [0, 3, 5], `${endOnShortPage}`);
    assert.deepEqual(seenAtEnd, [[5, false, null]]);
  }
});

Deno.test("items: one frozen list per page, the same until the next page; listeners and iterators get it; a caller's page array is copied", async () => {
  const answers = [[1, 2], [3]];
  const p = createPaginator<number>(2, () => Promise.resolve(success(answers.shift() ?? [])));
  const told: Array<readonly number[]> = [];
  const stop = p.items.subscribe((items) => told.push(items));
  const iterator = p.items[Symbol.asyncIterator]();
  assert.deepEqual((await iterator.next()).value, []);
  const page = (await p.loadNext()).getOrThrow() as number[];
  const first = p.items.value;
  assert.equal(p.items.value, first, "the same list until the next page");
  assert.ok(Object.isFrozen(first));
  assert.deepEqual(first, [1, 2]);
  assert.deepEqual((await iterator.next()).value, [1, 2]);
  page.push(99); // the fetcher's array changed after it answered: the items keep their copy
  assert.deepEqual(p.items.value, [1, 2]);
  await p.loadNext();
  assert.equal(p.isEnd.value, true);
  assert.deepEqual(p.items.value, [1, 2, 3]);
  assert.deepEqual(first, [1, 2]);
  assert.deepEqual(told, [[], [1, 2], [1, 2, 3]]);
  assert.equal(told[2], p.items.value);
  assert.deepEqual(await iterator.return?.(), { done: true, value: undefined });
  stop();
  assert.throws(() => p.items.subscribe(42 as never), TypeError);
});

Deno.test("items of many pages cost time in proportion to them, not to their square", async () => {
  // 200,000 items in pages of 20: each page copied every item before it (about 10 s).
  const p = createPaginator<number>(
    20,
    (offset, limit) =>
      Promise.resolve(
        success(offset < 200_000 ? Array.from({ length: limit }, (_, i) => offset + i) : []),
      ),
  );
  const t0 = performance.now();
  while (!p.isEnd.value) await p.loadNext();
  const items = p.items.value;
  const ms = performance.now() - t0;
  assert.equal(items.length, 200_000);
  assert.equal(items[199_999], 199_999);
  assert.ok(ms < 2_000, `took ${ms.toFixed(0)} ms`);
});

Deno.test("a page with holes keeps them as items (undefined): the list's length is the next offset", async () => {
  const offsets: number[] = [];
  const p = createPaginator<number | undefined>(3, (offset) => {
    offsets.push(offset);
    // deno-lint-ignore no-sparse-arrays
    return Promise.resolve(success(offset === 0 ? [1, , 3] : []));
  });
  await p.loadNext();
  await p.loadNext();
  assert.deepEqual(offsets, [0, 3]);
  assert.equal(p.items.value.length, 3);
  assert.deepEqual(p.items.value, [1, undefined, 3]);
});
