/**
 * Runs `fn` with `Object.prototype.__proto__` as Node, Bun, Workers and
 * browsers have it (Deno's own accessor ignores assignments): `o["__proto__"]
 * = v` then sets the prototype instead of a key, which code building objects
 * from untrusted keys must not rely on.
 */
export async function withProtoSetter(fn: () => void | Promise<void>): Promise<void> {
  const had = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
  Object.defineProperty(Object.prototype, "__proto__", {
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, v: unknown) {
      if (typeof v === "object") Object.setPrototypeOf(this, v);
    },
    configurable: true,
  });
  try {
    await fn();
  } finally {
    // deno-lint-ignore no-explicit-any
    delete (Object.prototype as any).__proto__;
    if (had) Object.defineProperty(Object.prototype, "__proto__", had);
  }
}
