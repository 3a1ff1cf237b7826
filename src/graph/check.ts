/**
 * Checks a parsed YAML document against a schema, keeping the source position of every value so that each
 * problem is reported as `line:col: message`. Every problem is collected; nothing stops at the first. A NUL
 * character is refused in every string and key (no file name, argv or message can carry one), and integers
 * must be exact (within ±2^53), so `1e308` is never taken for a tick number.
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

/** Where a value (and the key naming it) start in the text, with its children: positions by path. */
interface Located {
  at?: number;
  key?: number;
  kids?: Map<string | number, Located>;
}

function kid(parent: Located, k: string | number): Located {
  const kids = parent.kids ??= new Map();
  let c = kids.get(k);
  if (!c) kids.set(k, c = {});
  return c;
}

/** `root` names the whole document in messages ("plan is missing …"); nested values are named by path. */
export function checkDocument(doc: Document, schema: Schema, lines: LineCounter, root = "plan"): Checked {
  const problems: Problem[] = [];
  // Offsets are kept for every value and turned into line:col only when a position is asked for.
  const located: Located = {};
  const posOf = (offset: number): Pos => {
    const p = lines.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const offsetOf = (node: { range?: [number, number, number] | null } | null | undefined) =>
    node?.range?.[0] ?? 0;
  const at = (node: { range?: [number, number, number] | null } | null | undefined): Pos =>
    posOf(offsetOf(node));
  const report = (pos: Pos, message: string) => problems.push({ ...pos, message });
  // A key the file wrote (a record's keys are free) is quoted in labels unless it is a plain name.
  const child = (label: string, key: string) => {
    const k = /^[A-Za-z0-9_.-]+$/.test(key) ? key : quote(key);
    return label === root ? k : `${label}.${k}`;
  };

  const walk = (node: Node | null, sc: Schema, loc: Located, label: string): unknown => {
    loc.at = offsetOf(node);
    // The value's line:col, computed only for a message.
    const pos = () => posOf(loc.at!);
    if (isAlias(node)) {
      report(pos(), `${label}: YAML aliases are not supported`);
      return undefined;
    }
    switch (sc.t) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
      case "scalar":
      case "enum":
        return scalar(node as Scalar | null, sc, pos, label);
      case "array": {
        if (!isSeq(node)) return void report(pos(), `${label} must be a list, got ${describe(node)}`);
        if (sc.minItems !== undefined && node.items.length < sc.minItems) {
          report(pos(), `${label} must have at least ${sc.minItems} item${sc.minItems === 1 ? "" : "s"}`);
        }
        const out: unknown[] = [];
        node.items.forEach((item, i) => {
          const v = walk(item as Node, sc.items, kid(loc, i), `${label}[${i}]`);
          if (v !== undefined) out.push(v);
        });
        return out;
      }
      case "record":
      case "object":
      case "tagged": {
        if (!isMap(node)) return void report(pos(), `${label} must be a mapping, got ${describe(node)}`);
        let props: Record<string, Schema> | undefined;
        let required: readonly string[] = [];
        let tagOut: Record<string, unknown> = {};
        if (sc.t === "object") {
          props = sc.props;
          required = sc.required;
        } else if (sc.t === "tagged") {
          const tagPair = node.items.find((p) => isScalar(p.key) && p.key.value === sc.tag);
          const names = Object.keys(sc.variants);
          if (!tagPair) return void report(pos(), `${label} needs "${sc.tag}" (one of ${names.join(", ")})`);
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
          const kPos = () => at(pair.key as Node);
          if (typeof k !== "string") {
            report(kPos(), `${label}: keys must be plain strings, got ${show(k)}`);
            continue;
          }
          if (k.includes("\u0000")) {
            report(kPos(), `${label}: key ${show(k)} contains a NUL character`);
            continue;
          }
          seen.add(k);
          if (sc.t === "tagged" && k === sc.tag) continue;
          const here = kid(loc, k);
          here.key = offsetOf(pair.key as Node);
          if (sc.t === "record") {
            const v = walk(pair.value as Node, sc.values, here, child(label, k));
            if (v !== undefined) out[k] = v;
            continue;
          }
          const sub = props?.[k];
          if (!sub) {
            const allowed = Object.keys(props ?? {});
            const hint = closest(k, allowed);
            report(
              kPos(),
              `unknown key ${quote(k)} in ${label}` +
                (hint ? ` (did you mean "${hint}"?)` : ` (allowed: ${allowed.join(", ")})`),
            );
            continue;
          }
          const v = walk(pair.value as Node, sub, here, child(label, k));
          if (v !== undefined) out[k] = v;
        }
        for (const r of required) if (!seen.has(r)) report(pos(), `${label} is missing required key "${r}"`);
        return out;
      }
    }
  };

  const scalar = (node: Scalar | null, sc: Schema, pos: () => Pos, label: string): unknown => {
    if (node !== null && !isScalar(node)) {
      return void report(pos(), `${label} must be ${expects(sc)}, got ${describe(node)}`);
    }
    const v = node?.value ?? null;
    switch (sc.t) {
      case "string":
        if (typeof v !== "string") return void report(pos(), `${label} must be a string, got ${show(v)}`);
        if (v.includes("\u0000")) return void report(pos(), `${label} ${show(v)} contains a NUL character`);
        if (sc.minLength !== undefined && v.length < sc.minLength) {
          return void report(pos(), `${label} must not be empty`);
        }
        if (sc.pattern && !new RegExp(sc.pattern).test(v)) {
          return void report(pos(), `${label} ${show(v)} must match ${sc.pattern}`);
        }
        return v;
      case "number":
      case "integer":
        if (typeof v !== "number" || !Number.isFinite(v)) {
          return void report(pos(), `${label} must be ${expects(sc)}, got ${show(v)}`);
        }
        if (sc.t === "integer" && !Number.isInteger(v)) {
          return void report(pos(), `${label} must be an integer, got ${show(v)}`);
        }
        if (sc.t === "integer" && !Number.isSafeInteger(v)) {
          return void report(
            pos(),
            `${label} must be an integer between ±${Number.MAX_SAFE_INTEGER}, got ${v}`,
          );
        }
        if (sc.min !== undefined && v < sc.min) {
          return void report(pos(), `${label} must be ≥ ${sc.min}, got ${v}`);
        }
        if (sc.max !== undefined && v > sc.max) {
          return void report(pos(), `${label} must be ≤ ${sc.max}, got ${v}`);
        }
        return v;
      case "boolean":
        if (typeof v !== "boolean") {
          return void report(pos(), `${label} must be true or false, got ${show(v)}`);
        }
        return v;
      case "scalar":
        if (!["string", "number", "boolean"].includes(typeof v)) {
          return void report(pos(), `${label} must be a string, number or boolean, got ${show(v)}`);
        }
        if (typeof v === "number" && !Number.isFinite(v)) {
          return void report(pos(), `${label} must be a finite number, got ${show(v)}`);
        }
        if (typeof v === "string" && v.includes("\u0000")) {
          return void report(pos(), `${label} ${show(v)} contains a NUL character`);
        }
        return v;
      case "enum":
        if (typeof v !== "string" || !sc.values.includes(v)) {
          return void report(pos(), `${label} must be one of ${sc.values.join(", ")}, got ${show(v)}`);
        }
        return v;
      default:
        return undefined;
    }
  };

  const value = walk(doc.contents as Node | null, schema, located, root);
  /** The position of the deepest located value on `path` (its key's, when asked and known). */
  const lookup = (path: Path, preferKey: boolean): Pos => {
    let best = located.at;
    let loc: Located | undefined = located;
    for (const seg of path) {
      loc = loc.kids?.get(seg);
      if (!loc) break;
      best = (preferKey ? loc.key ?? loc.at : loc.at) ?? best;
    }
    return best === undefined ? { line: 1, col: 1 } : posOf(best);
  };
  return {
    value,
    problems,
    pos: (path) => lookup(path, false),
    keyPos: (path) => lookup(path, true),
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
  if (typeof v === "string") return quote(v);
  return String(v);
}

/** C0 controls (NUL, ESC, newline …), DEL and C1 controls: nothing a path, argv or id may hold. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The same, less newline and tab: program text (`python3 -c "…"`) in an argv or environment value. */
// deno-lint-ignore no-control-regex
const CONTROL_BUT_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Where `s` holds a control character, as "U+001B at character 3", or null. With `text`, newline and tab
 * pass: an argv or environment value may carry a script (`python3 -c` with several lines), never a path.
 */
export function controlCharIn(s: string, text = false): string | null {
  const m = (text ? CONTROL_BUT_TEXT : CONTROL).exec(s);
  if (!m) return null;
  return `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")} at character ${m.index + 1}`;
}

/** What JSON leaves raw but a terminal would act on: DEL, C1 controls and bidi overrides. */
const UNQUOTABLE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `s` with every control character and bidi override as a `\\uXXXX` escape: text fit for a message. */
export function escapeControls(s: string): string {
  // deno-lint-ignore no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** A value for a message: JSON-quoted, with every control character and bidi override escaped, cut. */
export function quote(s: string): string {
  const cut = s.length > 200 ? s.slice(0, 199) + "…" : s;
  return JSON.stringify(cut).replace(
    UNQUOTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
