/**
 * Checks a parsed YAML document against a schema, keeping the source position of every value so that each
 * problem is reported as `line:col: message`. Every problem is collected; nothing stops at the first.
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Scalar,
} from "yaml";
import { closest } from "./closest.ts";
import type { Schema } from "./schema.ts";

export interface Pos {
  line: number;
  col: number;
}

export interface Problem extends Pos {
  message: string;
}

export type Path = readonly (string | number)[];

/** Result of a structural check: the valid part of the value, problems, and a position lookup. */
export interface Checked {
  value: unknown;
  problems: Problem[];
  /** Position of the value at `path` (or of its nearest located ancestor). */
  pos(path: Path): Pos;
  /** Position of the key naming the value at `path`, falling back to the value. */
  keyPos(path: Path): Pos;
}

const key = (path: Path) => path.join("\u0000");

/** `root` names the whole document in messages ("plan is missing …"); nested values are named by path. */
export function checkDocument(doc: Document, schema: Schema, lines: LineCounter, root = "plan"): Checked {
  const problems: Problem[] = [];
  const valuePos = new Map<string, Pos>();
  const keyPosMap = new Map<string, Pos>();
  const at = (node: { range?: [number, number, number] | null } | null | undefined): Pos => {
    const offset = node?.range?.[0] ?? 0;
    const p = lines.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const report = (pos: Pos, message: string) => problems.push({ ...pos, message });
  const child = (label: string, key: string) => (label === root ? key : `${label}.${key}`);

  const walk = (node: Node | null, sc: Schema, path: Path, label: string): unknown => {
    const pos = at(node);
    valuePos.set(key(path), pos);
    if (isAlias(node)) {
      report(pos, `${label}: YAML aliases are not supported`);
      return undefined;
    }
    const nodeType = describe(node);
    switch (sc.t) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
      case "scalar":
      case "enum":
        return scalar(node as Scalar | null, sc, pos, label, nodeType);
      case "array": {
        if (!isSeq(node)) return void report(pos, `${label} must be a list, got ${nodeType}`);
        if (sc.minItems !== undefined && node.items.length < sc.minItems) {
          report(pos, `${label} must have at least ${sc.minItems} item${sc.minItems === 1 ? "" : "s"}`);
        }
        const out: unknown[] = [];
        node.items.forEach((item, i) => {
          const v = walk(item as Node, sc.items, [...path, i], `${label}[${i}]`);
          if (v !== undefined) out.push(v);
        });
        return out;
      }
      case "record":
      case "object":
      case "tagged": {
        if (!isMap(node)) return void report(pos, `${label} must be a mapping, got ${nodeType}`);
        let props: Record<string, Schema> | undefined;
        let required: readonly string[] = [];
        let tagOut: Record<string, unknown> = {};
        if (sc.t === "object") {
          props = sc.props;
          required = sc.required;
        } else if (sc.t === "tagged") {
          const tagPair = node.items.find((p) => isScalar(p.key) && p.key.value === sc.tag);
          const names = Object.keys(sc.variants);
          if (!tagPair) return void report(pos, `${label} needs "${sc.tag}" (one of ${names.join(", ")})`);
          const tagValue = isScalar(tagPair.value) ? tagPair.value.value : undefined;
          const variant = typeof tagValue === "string" ? sc.variants[tagValue] : undefined;
          if (!variant) {
            return void report(
              at(tagPair.value as Node),
              `${child(label, sc.tag)} must be one of ${names.join(", ")}, got ${show(tagValue)}`,
            );
          }
          props = { ...variant.props };
          required = variant.required;
          tagOut = { [sc.tag]: tagValue };
        }
        const out: Record<string, unknown> = { ...tagOut };
        const seen = new Set<string>();
        for (const pair of node.items) {
          const k = isScalar(pair.key) ? pair.key.value : undefined;
          const kPos = at(pair.key as Node);
          if (typeof k !== "string") {
            report(kPos, `${label}: keys must be plain strings, got ${show(k)}`);
            continue;
          }
          seen.add(k);
          if (sc.t === "tagged" && k === sc.tag) continue;
          keyPosMap.set(key([...path, k]), kPos);
          if (sc.t === "record") {
            const v = walk(pair.value as Node, sc.values, [...path, k], child(label, k));
            if (v !== undefined) out[k] = v;
            continue;
          }
          const sub = props?.[k];
          if (!sub) {
            const allowed = Object.keys(props ?? {});
            const hint = closest(k, allowed);
            report(
              kPos,
              `unknown key "${k}" in ${label}` +
                (hint ? ` (did you mean "${hint}"?)` : ` (allowed: ${allowed.join(", ")})`),
            );
            continue;
          }
          const v = walk(pair.value as Node, sub, [...path, k], child(label, k));
          if (v !== undefined) out[k] = v;
        }
        for (const r of required) if (!seen.has(r)) report(pos, `${label} is missing required key "${r}"`);
        return out;
      }
    }
  };

  const scalar = (node: Scalar | null, sc: Schema, pos: Pos, label: string, nodeType: string): unknown => {
    if (node !== null && !isScalar(node)) {
      return void report(pos, `${label} must be ${expects(sc)}, got ${nodeType}`);
    }
    const v = node?.value ?? null;
    switch (sc.t) {
      case "string":
        if (typeof v !== "string") return void report(pos, `${label} must be a string, got ${show(v)}`);
        if (sc.minLength !== undefined && v.length < sc.minLength) {
          return void report(pos, `${label} must not be empty`);
        }
        if (sc.pattern && !new RegExp(sc.pattern).test(v)) {
          return void report(pos, `${label} ${show(v)} must match ${sc.pattern}`);
        }
        return v;
      case "number":
      case "integer":
        if (typeof v !== "number" || !Number.isFinite(v)) {
          return void report(pos, `${label} must be ${expects(sc)}, got ${show(v)}`);
        }
        if (sc.t === "integer" && !Number.isInteger(v)) {
          return void report(pos, `${label} must be an integer, got ${show(v)}`);
        }
        if (sc.min !== undefined && v < sc.min) {
          return void report(pos, `${label} must be ≥ ${sc.min}, got ${v}`);
        }
        if (sc.max !== undefined && v > sc.max) {
          return void report(pos, `${label} must be ≤ ${sc.max}, got ${v}`);
        }
        return v;
      case "boolean":
        if (typeof v !== "boolean") return void report(pos, `${label} must be true or false, got ${show(v)}`);
        return v;
      case "scalar":
        if (!["string", "number", "boolean"].includes(typeof v)) {
          return void report(pos, `${label} must be a string, number or boolean, got ${show(v)}`);
        }
        return v;
      case "enum":
        if (typeof v !== "string" || !sc.values.includes(v)) {
          return void report(pos, `${label} must be one of ${sc.values.join(", ")}, got ${show(v)}`);
        }
        return v;
      default:
        return undefined;
    }
  };

  const value = walk(doc.contents as Node | null, schema, [], root);
  const lookup = (map: Map<string, Pos>, path: Path): Pos => {
    for (let n = path.length; n >= 0; n--) {
      const p = map.get(key(path.slice(0, n))) ?? valuePos.get(key(path.slice(0, n)));
      if (p) return p;
    }
    return { line: 1, col: 1 };
  };
  return {
    value,
    problems,
    pos: (path) => lookup(valuePos, path),
    keyPos: (path) => lookup(keyPosMap, path),
  };
}

function describe(node: Node | null): string {
  if (node === null || (isScalar(node) && node.value === null)) return "nothing";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) return show(node.value);
  return "an alias";
}

function expects(sc: Schema): string {
  return sc.t === "integer" ? "an integer" : sc.t === "number" ? "a number" : `a ${sc.t}`;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}
