/**
 * readIdle (storage/_idle_read.ts): tests from the third mutation review, each
 * named by the mutant it kills.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { readIdle } from "../../storage/_idle_read.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

// I04: `arm(idleMs - quiet)` → `arm(idleMs)`: a pause after a late piece could last almost twice
// the limit. Fake time: measured on the wall clock, a busy machine's late timers ate the margin.
Deno.test("readIdle: a stall after a late piece ends once the pause reaches idleMs, not a whole idleMs after the first check", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        await delay(300);
        c.enqueue(new Uint8Array([1]));
        // then nothing, until cancelled
      },
      cancel() {
        cancelled = true;
      },
    });
    let settled = false;
    const pending = readIdle(stream, 600).finally(() => settled = true);
    // The pause began at 300 ms: the read ends at 900 ms (the mutant's at 1200 ms).
    await clock.tickAsync(899);
    assert.equal(settled, false);
    await clock.tickAsync(1);
    assert.equal(settled, true);
    assert.equal((await pending).errorOrNull()?.category, "TIMEOUT");
    assert.ok(cancelled);
  } finally {
    clock.uninstall();
  }
});

// I03: the reason given to the body's source names why it was cancelled.
Deno.test("readIdle: the stream is cancelled with a TimeoutError on a stall and an AbortError on abort", async () => {
  const reasons: unknown[] = [];
  const stalled = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([1]));
      },
      cancel(reason) {
        reasons.push(reason);
      },
    });
  assert.equal((await readIdle(stalled(), 50)).errorOrNull()?.category, "TIMEOUT");
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  assert.equal(
    (await readIdle(stalled(), 5_000, controller.signal)).errorOrNull()?.category,
    "CANCELLED",
  );
  assert.deepEqual(reasons.map((r) => (r as DOMException).name), ["TimeoutError", "AbortError"]);
});

/** A body of these pieces, recording whether it was cancelled. */
function body(pieces: unknown[], state: { cancelled?: unknown } = {}) {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of pieces) c.enqueue(p as Uint8Array);
      c.close();
    },
    cancel(reason) {
      state.cancelled = reason ?? true;
    },
  });
}

// I07: `arm(idleMs - quiet)` → `arm(quiet)`.
Deno.test("readIdle: a stall after an early piece ends idleMs after that piece", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        await delay(150);
        c.enqueue(new Uint8Array([1]));
      },
    });
    let settled = false;
    const pending = readIdle(stream, 600).finally(() => settled = true);
    // 750 ms; `arm(quiet)` ends at 1050 ms, `arm(idleMs)` at 1200 ms.
    await clock.tickAsync(749);
    assert.equal(settled, false);
    await clock.tickAsync(1);
    assert.equal(settled, true);
    assert.equal((await pending).errorOrNull()?.category, "TIMEOUT");
  } finally {
    clock.uninstall();
  }
});

// I12: a signal already aborted is CANCELLED at once, the body cancelled and never read.
Deno.test("readIdle: a signal aborted before the read is CANCELLED and the body cancelled", async () => {
  const state: { cancelled?: unknown } = {};
  const r = await readIdle(body([new Uint8Array([1])], state), 1_000, AbortSignal.abort());
  assert.equal(r.errorOrNull()?.category, "CANCELLED");
  assert.ok(state.cancelled);
});

// I15: past setTimeout's largest delay no timer is armed (else it fires at once, and re-arms
// every millisecond for the whole read).
Deno.test("readIdle: a limit past setTimeout's largest delay arms no timer", async () => {
  const original = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    armed++;
    return original(fn, ms);
  }) as typeof setTimeout;
  try {
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        await new Promise((r) => original(r, 60));
        c.enqueue(new Uint8Array([1]));
        c.close();
      },
    });
    const r = await readIdle(stream, 2 ** 31);
    assert.deepEqual([...r.getOrThrow()], [1]);
    const inf = await readIdle(body([new Uint8Array([2])]), Infinity);
    assert.deepEqual([...inf.getOrThrow()], [2]);
  } finally {
    globalThis.setTimeout = original;
  }
  assert.equal(armed, 0);
});

// I21: a failure that is not the body's own (here a chunk that is no bytes) cancels the body,
// which closes the connection.
Deno.test("readIdle: a read that fails on a bad chunk is DECODE and cancels the body", async () => {
  const state: { cancelled?: unknown } = {};
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(null as unknown as Uint8Array);
    },
    cancel(reason) {
      state.cancelled = reason ?? true;
    },
  });
  const r = await readIdle(stream, 1_000);
  assert.equal(r.errorOrNull()?.category, "DECODE");
  assert.ok(state.cancelled, "the body was not cancelled");
});

// I23: the timer is cleared when the read ends (else, with a 30 s client timeout, every
// download keeps a timer, and a Node process, alive for 30 s after it).
Deno.test("readIdle: no timer is left once the body has arrived", async () => {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const pending = new Set<unknown>();
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const id = set(() => {
      pending.delete(id);
      fn();
    }, ms);
    pending.add(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: number) => {
    pending.delete(id);
    clear(id);
  }) as typeof clearTimeout;
  try {
    const r = await readIdle(body([new Uint8Array([1])]), 60_000);
    assert.deepEqual([...r.getOrThrow()], [1]);
    assert.equal(pending.size, 0);
  } finally {
    for (const id of pending) clear(id as number);
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
  }
});

// I24: the listener on the caller's signal is removed when the read ends (a long-lived signal
// would otherwise gather one per download, each holding its reader).
Deno.test("readIdle: the abort listener is removed from the caller's signal", async () => {
  const controller = new AbortController();
  const live = new Set<unknown>();
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, fn: EventListener, o?: unknown) => {
    live.add(fn);
    add(type, fn, o as AddEventListenerOptions);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, fn: EventListener, o?: unknown) => {
    live.delete(fn);
    remove(type, fn, o as EventListenerOptions);
  }) as typeof signal.removeEventListener;
  assert.ok((await readIdle(body([new Uint8Array([1])]), 1_000, signal)).ok);
  assert.equal(live.size, 0);
});

// I28: a single piece at offset 0 of a larger buffer is copied: handing its buffer over would
// expose (and return) the bytes past it.
Deno.test("readIdle: a single piece that is the start of a larger buffer is copied", async () => {
  const view = new Uint8Array([6, 7, 9, 9]).subarray(0, 2);
  const r = (await readIdle(body([view]), 1_000)).getOrThrow();
  assert.deepEqual([...r], [6, 7]);
  assert.equal(r.buffer.byteLength, 2);
});

// I29: a Node Buffer piece (node-fetch's body) comes back as a plain Uint8Array.
Deno.test("readIdle: a single Buffer piece comes back as a plain Uint8Array", async () => {
  const { Buffer } = await import("node:buffer");
  const piece = Buffer.alloc(4, 1); // unpooled: offset 0, its whole buffer
  const r = (await readIdle(body([piece]), 1_000)).getOrThrow();
  assert.equal(Object.getPrototypeOf(r), Uint8Array.prototype);
  assert.deepEqual([...r], [1, 1, 1, 1]);
});

// I35: an empty piece is no end of the body.
Deno.test("readIdle: an empty piece mid-body does not end it", async () => {
  const r = await readIdle(
    body([new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2])]),
    1_000,
  );
  assert.deepEqual([...r.getOrThrow()], [1, 2]);
  const sized = await readIdle(
    body([new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2])]),
    1_000,
    undefined,
    2,
  );
  assert.deepEqual([...sized.getOrThrow()], [1, 2]);
});

// I18, I26: with the announced length, each byte is copied once, into the one buffer (no join,
// no copy at the end).
Deno.test("readIdle: a body of its announced length is copied once, with no copy at the end", async () => {
  const proto = Uint8Array.prototype;
  const { set, slice } = proto;
  let copied = 0;
  let sliced = 0;
  proto.set = function (this: Uint8Array, source: ArrayLike<number>, offset?: number) {
    copied += source.length;
    return set.call(this, source, offset);
  } as typeof proto.set;
  proto.slice = function (this: Uint8Array, ...args: [number?, number?]) {
    sliced++;
    return slice.apply(this, args);
  } as typeof proto.slice;
  let r;
  try {
    r = await readIdle(
      body([new Uint8Array([1, 2]), new Uint8Array([3, 4, 5])]),
      1_000,
      undefined,
      5,
    );
  } finally {
    proto.set = set;
    proto.slice = slice;
  }
  assert.deepEqual([...r.getOrThrow()], [1, 2, 3, 4, 5]);
  assert.equal(copied, 5);
  assert.equal(sliced, 0);
});
