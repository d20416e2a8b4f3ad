import assert from "node:assert/strict";
import { MutableStateFlow } from "../../core/state_flow.ts";

Deno.test("subscribe gets current value at once, then changes, until unsubscribed", () => {
  const flow = new MutableStateFlow(1);
  const seen: number[] = [];
  const stop = flow.subscribe((v) => seen.push(v));
  flow.value = 2;
  flow.value = 2; // equal: no notification
  flow.value = 3;
  stop();
  flow.value = 4;
  assert.deepEqual(seen, [1, 2, 3]);
});

Deno.test("a throwing listener reaches no other listener and not the setter", () => {
  const flow = new MutableStateFlow("a");
  const seen: string[] = [];
  flow.subscribe(() => {
    throw new Error("boom");
  });
  flow.subscribe((v) => seen.push(v));
  flow.value = "b";
  assert.deepEqual(seen, ["a", "b"]);
  assert.equal(flow.value, "b");
});

Deno.test("a listener may unsubscribe another during notification", () => {
  const flow = new MutableStateFlow(0);
  const seen: number[] = [];
  let stopB = () => {};
  flow.subscribe((v) => {
    if (v === 1) stopB();
  });
  stopB = flow.subscribe((v) => seen.push(v));
  flow.value = 1;
  assert.deepEqual(seen, [0]);
});

Deno.test("async iterator yields current then latest values and stops on break", async () => {
  const flow = new MutableStateFlow(0);
  const seen: number[] = [];
  const done = (async () => {
    for await (const v of flow) {
      seen.push(v);
      if (v === 2) break;
    }
  })();
  await Promise.resolve();
  flow.value = 1;
  await new Promise((r) => setTimeout(r, 0));
  flow.value = 2;
  await done;
  assert.deepEqual(seen, [0, 1, 2]);
  flow.value = 3; // no listener left to resume
  assert.deepEqual(seen, [0, 1, 2]);
});

Deno.test("async iterator is conflated: a value changed and changed back before next() is not yielded again", async () => {
  const flow = new MutableStateFlow(0);
  const it = flow[Symbol.asyncIterator]();
  assert.deepEqual(await it.next(), { done: false, value: 0 });
  flow.value = 1;
  flow.value = 0; // back to what was last yielded
  const next = it.next();
  flow.value = 2;
  assert.deepEqual(await next, { done: false, value: 2 });
  flow.value = 3;
  assert.deepEqual(await it.next(), { done: false, value: 3 });
  await it.return!();
});

Deno.test("an async listener that rejects is isolated like one that throws: no unhandled rejection, the others still hear", async () => {
  const flow = new MutableStateFlow(0);
  const heard: number[] = [];
  flow.subscribe((v) => Promise.reject(new Error(`async listener ${v}`)) as unknown as void);
  flow.subscribe((v) => void heard.push(v));
  flow.value = 1;
  flow.value = 2;
  // An unhandled rejection would fail this test once the microtasks have run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(heard, [0, 1, 2]);
});

Deno.test("close drops the listeners and ends every open iterator; the value stays", async () => {
  const flow = new MutableStateFlow(0);
  const heard: number[] = [];
  flow.subscribe((v) => heard.push(v));
  const looped: number[] = [];
  const loop = (async () => {
    for await (const v of flow) looped.push(v);
  })();
  const it = flow[Symbol.asyncIterator]();
  const pending = it.next().then(() => it.next());
  await Promise.resolve();
  flow.close();
  await loop;
  assert.deepEqual((await pending).done, true);
  flow.value = 1;
  assert.deepEqual(heard, [0]);
  assert.deepEqual(looped, [0]);
  assert.equal(flow.value, 1);
  // A listener subscribed after hears on.
  const later: number[] = [];
  flow.subscribe((v) => later.push(v));
  flow.value = 2;
  assert.deepEqual(later, [1, 2]);
});

Deno.test("after close, an iterator yields the current value and ends; a value set just before close is still yielded", async () => {
  const flow = new MutableStateFlow(0);
  const looped: number[] = [];
  const loop = (async () => {
    for await (const v of flow) looped.push(v);
  })();
  await Promise.resolve();
  flow.value = 1;
  flow.close();
  await loop;
  assert.deepEqual(looped, [0, 1]);
  const late: number[] = [];
  for await (const v of flow) late.push(v); // would wait for ever before
  assert.deepEqual(late, [1]);
});
