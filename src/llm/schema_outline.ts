/**
 * A compact, YAML-like outline of a schema (field, type, required, doc) for the planner's prompt. It is
 * generated from the plan schema itself, so the planner always teaches the format the loader checks.
 *
 * @module
 */
import type { Schema } from "../graph/schema.ts";

function typeText(s: Schema): string {
  switch (s.t) {
    case "string":
      return s.pattern ? `string matching ${s.pattern}` : "string";
    case "number":
    case "integer": {
      const range = s.min !== undefined || s.max !== undefined ? ` (${s.min ?? ""}..${s.max ?? ""})` : "";
      return `${s.t}${range}`;
    }
    case "boolean":
      return "boolean";
    case "scalar":
      return "string | number | boolean";
    case "enum":
      return s.values.join(" | ");
    case "array":
      return s.items.t === "object" || s.items.t === "tagged"
        ? "list, each:"
        : `list of ${typeText(s.items)}`;
    case "record":
      return `map of name → ${typeText(s.values)}`;
    case "object":
      return "";
    case "tagged":
      return `one of (by ${s.tag}):`;
  }
}

/** Outline lines of a schema's fields, nested by two spaces; `omit` leaves out fields by name. */
export function outline(s: Schema, omit: readonly string[] = [], depth = 0): string[] {
  const pad = "  ".repeat(depth);
  if (s.t === "array") return outline(s.items, omit, depth);
  if (s.t === "tagged") {
    return Object.entries(s.variants).flatMap(([name, v]) => [
      `${pad}- ${s.tag}: ${name}${v.doc ? `  # ${v.doc}` : ""}`,
      ...outline(v, omit, depth + 1),
    ]);
  }
  if (s.t !== "object") return [];
  return Object.entries(s.props).filter(([key]) => !omit.includes(key)).flatMap(([key, v]) => {
    const req = s.required.includes(key) ? " (required)" : "";
    const doc = v.doc ? `  # ${v.doc}` : "";
    const type = typeText(v);
    return [`${pad}${key}${req}:${type ? ` ${type}` : ""}${doc}`, ...outline(v, omit, depth + 1)];
  });
}
