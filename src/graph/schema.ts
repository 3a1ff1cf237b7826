/**
 * A tiny schema language: one definition gives the TypeScript type (via `Infer`), the structural checker
 * used by the plan loader, and the JSON Schema shipped for editors. Keeping all three in one place is what
 * lets a test prove the JSON Schema and the types agree.
 *
 * @module
 */

export type Schema =
  | { t: "string"; doc?: string; pattern?: string; minLength?: number }
  | { t: "number"; doc?: string; min?: number; max?: number }
  | { t: "integer"; doc?: string; min?: number; max?: number }
  | { t: "boolean"; doc?: string }
  | { t: "enum"; doc?: string; values: readonly string[] }
  | { t: "array"; doc?: string; items: Schema; minItems?: number }
  | { t: "object"; doc?: string; props: Record<string, Schema>; required: readonly string[] }
  | { t: "record"; doc?: string; values: Schema }
  | { t: "scalar"; doc?: string }
  | { t: "tagged"; doc?: string; tag: string; variants: Record<string, Schema & { t: "object" }> };

type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

type ObjectOf<P extends Record<string, Schema>, R extends string> = Simplify<
  & { [K in keyof P as K extends R ? K : never]: Infer<P[K]> }
  & { [K in keyof P as K extends R ? never : K]?: Infer<P[K]> }
>;

type Variants<T extends string, V> = { [K in keyof V]: Simplify<{ [Q in T]: K } & Infer<V[K]>> }[keyof V];

/** The TypeScript type a schema describes. */
export type Infer<S> = S extends { t: "string" } ? string
  : S extends { t: "number" | "integer" } ? number
  : S extends { t: "boolean" } ? boolean
  : S extends { t: "scalar" } ? string | number | boolean
  : S extends { t: "enum"; values: readonly (infer V)[] } ? V
  : S extends { t: "array"; items: infer I } ? Infer<I>[]
  : S extends { t: "record"; values: infer V } ? Record<string, Infer<V>>
  : S extends { t: "object"; props: infer P extends Record<string, Schema>; required: readonly (infer R)[] }
    ? ObjectOf<P, R & string>
  : S extends { t: "tagged"; tag: infer T extends string; variants: infer V } ? Variants<T, V>
  : never;

/** Constructors; `as const` generics keep literal types so `Infer` can see them. */
export const s = {
  str: (o: { doc?: string; pattern?: string; minLength?: number } = {}) => ({ t: "string" as const, ...o }),
  num: (o: { doc?: string; min?: number; max?: number } = {}) => ({ t: "number" as const, ...o }),
  int: (o: { doc?: string; min?: number; max?: number } = {}) => ({ t: "integer" as const, ...o }),
  bool: (doc?: string) => ({ t: "boolean" as const, ...(doc ? { doc } : {}) }),
  scalar: (doc?: string) => ({ t: "scalar" as const, ...(doc ? { doc } : {}) }),
  enum: <const V extends readonly string[]>(values: V, doc?: string) => ({
    t: "enum" as const,
    values,
    ...(doc ? { doc } : {}),
  }),
  arr: <I extends Schema>(items: I, o: { doc?: string; minItems?: number } = {}) => ({
    t: "array" as const,
    items,
    ...o,
  }),
  obj: <P extends Record<string, Schema>, const R extends readonly (keyof P & string)[]>(
    props: P,
    required: R,
    doc?: string,
  ) => ({ t: "object" as const, props, required, ...(doc ? { doc } : {}) }),
  record: <V extends Schema>(values: V, o: { doc?: string } = {}) => ({
    t: "record" as const,
    values,
    ...o,
  }),
  tagged: <const T extends string, V extends Record<string, Schema & { t: "object" }>>(
    tag: T,
    variants: V,
    doc?: string,
  ) => ({ t: "tagged" as const, tag, variants, ...(doc ? { doc } : {}) }),
};

/** JSON Schema (draft 2020-12) for a schema. */
export function toJsonSchema(schema: Schema): Record<string, unknown> {
  const doc = schema.doc ? { description: schema.doc } : {};
  switch (schema.t) {
    case "string":
      return {
        type: "string",
        ...doc,
        ...(schema.pattern ? { pattern: schema.pattern } : {}),
        ...(schema.minLength !== undefined ? { minLength: schema.minLength } : {}),
      };
    case "number":
    case "integer":
      return {
        type: schema.t,
        ...doc,
        ...(schema.min !== undefined ? { minimum: schema.min } : {}),
        ...(schema.max !== undefined ? { maximum: schema.max } : {}),
      };
    case "boolean":
      return { type: "boolean", ...doc };
    case "scalar":
      return { type: ["string", "number", "boolean"], ...doc };
    case "enum":
      return { enum: [...schema.values], ...doc };
    case "array":
      return {
        type: "array",
        items: toJsonSchema(schema.items),
        ...doc,
        ...(schema.minItems !== undefined ? { minItems: schema.minItems } : {}),
      };
    case "record":
      return { type: "object", ...doc, additionalProperties: toJsonSchema(schema.values) };
    case "object":
      return {
        type: "object",
        ...doc,
        properties: Object.fromEntries(Object.entries(schema.props).map(([k, v]) => [k, toJsonSchema(v)])),
        ...(schema.required.length ? { required: [...schema.required] } : {}),
        additionalProperties: false,
      };
    case "tagged":
      return {
        ...doc,
        oneOf: Object.entries(schema.variants).map(([name, v]) => {
          const inner = toJsonSchema(v);
          const props = { [schema.tag]: { const: name }, ...(inner.properties as Record<string, unknown>) };
          return { ...inner, properties: props, required: [schema.tag, ...v.required] };
        }),
      };
  }
}
