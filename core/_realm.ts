/**
 * Type checks that hold across realms. A value made in another realm (an iframe, a `node:vm`
 * context, or a test environment such as jsdom that swaps some globals and not others) is no
 * `instanceof` this realm's class, yet fetch, WebCrypto and `TextDecoder` take it: under Vitest's
 * jsdom environment, `new TextEncoder().encode("a") instanceof Uint8Array` is false. These checks
 * read the value's internal slots through the built-in getters, so an object that only claims a
 * type (through `Symbol.toStringTag`) is not taken for it. The getters are looked up on first use:
 * importing this module touches no global.
 *
 * @module
 */

type Getter = (this: unknown) => unknown;
/** The built-in getters, looked up once each (null: the runtime has none there). */
let typedArrayName: Getter | null | undefined;
let bufferLength: Getter | null | undefined;
let streamLocked: Getter | null | undefined;

/**
 * A built-in accessor's getter, or null where the property is no accessor of the prototype:
 * workerd before compatibility date 2022-01-31 puts a stream's `locked` on each instance.
 */
const getter = (of: object, key: PropertyKey): Getter | null =>
  (Object.getOwnPropertyDescriptor(of, key)?.get as Getter | undefined) ?? null;

/**
 * Whether `get` accepts `value` as its receiver (the built-in's own brand check), once `like`
 * (`value` has the type's shape) holds. The check throws for any other value, which costs
 * microseconds (Node builds an error): `like` spares most values it, and runs inside the same
 * `try`, since reading a property may run a caller's getter or proxy trap.
 */
function branded(
  get: Getter | null,
  value: unknown,
  like: (value: Record<string, unknown>) => boolean,
): boolean {
  if (get === null || typeof value !== "object" || value === null) return false;
  try {
    if (!like(value as Record<string, unknown>)) return false;
    get.call(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a `Uint8Array` (a Node `Buffer` included) of any realm. */
export function isUint8Array(value: unknown): value is Uint8Array {
  if (value instanceof Uint8Array) return true;
  if (!ArrayBuffer.isView(value)) return false;
  typedArrayName ??= getter(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag);
  return typedArrayName?.call(value) === "Uint8Array";
}

/** Whether `value` is an `ArrayBuffer` of any realm (not a `SharedArrayBuffer`). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return value instanceof ArrayBuffer ||
    branded(
      bufferLength ??= getter(ArrayBuffer.prototype, "byteLength"),
      value,
      (v) => typeof v.byteLength === "number" && !ArrayBuffer.isView(v),
    );
}

/**
 * Whether `value` is a `ReadableStream` of any realm. Where the runtime has no `ReadableStream`
 * there is none to take; where its `locked` is no accessor, only its own realm's are known.
 */
export function isReadableStream(value: unknown): value is ReadableStream {
  return typeof ReadableStream !== "undefined" &&
    (value instanceof ReadableStream ||
      branded(
        streamLocked ??= getter(ReadableStream.prototype, "locked"),
        value,
        (v) => typeof v.getReader === "function",
      ));
}

/**
 * Bytes of any realm as a `Uint8Array` of this one, over the same memory (nothing is copied): a
 * `Uint8Array` as it is, another view as its bytes, an `ArrayBuffer` whole; null for anything
 * else.
 */
export function localBytes(value: unknown): Uint8Array | null {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return isArrayBuffer(value) ? new Uint8Array(value) : null;
}

/**
 * Bytes that `fetch` can send: a view of shared memory (a `SharedArrayBuffer`: WebAssembly
 * threads, a buffer shared with a worker), which `fetch` refuses, copied into memory of its own
 * (also a snapshot no other thread can change while it is sent); any other view as it is.
 */
export function unshared<T extends ArrayBufferView>(bytes: T): T | Uint8Array {
  return isArrayBuffer(bytes.buffer) ? bytes : localBytes(bytes)!.slice();
}

/**
 * Whether `value` is a Blob to read into memory before it is sent, because fetch may not take it
 * as it is: a Blob of another realm or implementation (an iframe's `File`, Node's `Blob` under a
 * jsdom or happy-dom test environment, whose own `Blob` replaces the global), known by what it says
 * it is and by its `arrayBuffer` method, or a Blob without `stream()` (jsdom's, which Node's fetch
 * fails to send with "object.stream is not a function").
 */
export function isBlobToRead(value: unknown): value is Blob {
  if (typeof value !== "object" || value === null) return false;
  if (typeof Blob !== "undefined" && value instanceof Blob) {
    return typeof value.stream !== "function";
  }
  const tag = Object.prototype.toString.call(value);
  return (tag === "[object Blob]" || tag === "[object File]") &&
    typeof (value as Blob).arrayBuffer === "function";
}
