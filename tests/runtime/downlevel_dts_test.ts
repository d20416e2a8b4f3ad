/**
 * The declarations the npm package ships for TypeScript before 5.7 (`scripts/_downlevel_dts.ts`):
 * only buffer-typed typed arrays and `NoInfer` are rewritten, wherever they are nested, and
 * every other character stays as written.
 */
import assert from "node:assert/strict";
import { downlevelDeclarations } from "../../scripts/_downlevel_dts.ts";

Deno.test("downlevelDeclarations: typed arrays lose their buffer type, at any depth", () => {
  assert.equal(
    downlevelDeclarations("export declare function f(): Uint8Array<ArrayBuffer>;\n"),
    "export declare function f(): Uint8Array;\n",
  );
  assert.equal(
    downlevelDeclarations(
      "export declare function g(a: DataView<ArrayBufferLike>): Promise<Map<string, Float64Array<ArrayBuffer>[]>>;",
    ),
    "export declare function g(a: DataView): Promise<Map<string, Float64Array[]>>;",
  );
  assert.equal(
    downlevelDeclarations("export interface B {\n    bytes: Uint8Array<ArrayBuffer>;\n}\n"),
    "export interface B {\n    bytes: Uint8Array;\n}\n",
  );
});

Deno.test("downlevelDeclarations: NoInfer<T> becomes the indexed form that also defers inference", () => {
  assert.equal(
    downlevelDeclarations(
      "declare function eq<T>(c: C<T>, v: NoInfer<NonNullable<T>> | null): void;",
    ),
    "declare function eq<T>(c: C<T>, v: [NonNullable<T>][NonNullable<T> extends any ? 0 : never] | null): void;",
  );
  // Nested rewrites inside the argument, and an argument with an arrow type.
  assert.equal(
    downlevelDeclarations("type A<T> = NoInfer<Uint8Array<ArrayBuffer> | T>;"),
    "type A<T> = [Uint8Array | T][Uint8Array | T extends any ? 0 : never];",
  );
  assert.equal(
    downlevelDeclarations("type F<T> = NoInfer<(x: T) => void>[];"),
    "type F<T> = [(x: T) => void][(x: T) => void extends any ? 0 : never][];",
  );
});

Deno.test("downlevelDeclarations: everything else stays, comments and maps' comment included", () => {
  const text = [
    "/**",
    " * Returns `Uint8Array<ArrayBuffer>` bytes; see NoInfer<T> in the docs.",
    " * @example",
    " * ```ts",
    " * const b: Uint8Array<ArrayBuffer> = f();",
    " * ```",
    " */",
    "export declare function f(a: Uint8Array, b: readonly Uint8Array[]): ArrayBuffer;",
    "// Uint8Array<ArrayBuffer>",
    "export type G = Array<Uint8Array>;",
    "declare class NoInferBox<T> { value: T; }",
    "export declare const x: NoInferBox<number>;",
    "//# sourceMappingURL=x.d.ts.map",
  ].join("\n");
  assert.equal(downlevelDeclarations(text), text);
  // A qualified name is some other namespace's type, not the global one.
  const qualified = "export declare const y: lib.Uint8Array<ArrayBuffer>;";
  assert.equal(downlevelDeclarations(qualified), qualified);
});
