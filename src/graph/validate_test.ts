import { deepEqual, equal, match } from "node:assert/strict";
import { formatDiagnostic, loadPlan } from "./load.ts";
import type { PlanFile } from "./types.ts";
import { MAX_SCOPE_LENGTH, validatePlan } from "./validate.ts";

/** A small valid plan with `extra` YAML appended to node N1 (indented as its keys). */
function plan(n1: string): string {
  return [
    "question: q",
    "protocol: {version: v1, metric: r2, direction: maximize}",
    "nodes:",
    "  - id: N0",
    "    kind: fast",
    "    role: data",
    "  - id: N1",
    "    kind: fast",
    "    role: other",
    ...n1.split("\n").map((l) => `    ${l}`),
    "edges:",
    "  - {from: N0, to: N1, kind: artifact}",
    "",
  ].join("\n");
}

function errorsOf(text: string): string[] {
  const r = loadPlan(text, "p.yaml");
  equal(r.plan, undefined, "the plan is refused");
  return r.errors.map(formatDiagnostic);
}

Deno.test("loadPlan() refuses a NUL in a scope with file:line:col, before anything can use it", () => {
  deepEqual(errorsOf(plan('scope: "x\\0y"')), [
    'p.yaml:10:12: nodes[1].scope "x\\u0000y" contains a NUL character',
  ]);
});

Deno.test("loadPlan() refuses C0, DEL and C1 control characters in scopes", () => {
  for (const [esc, code] of [["\\e", "001B"], ["\\t", "0009"], ["\\x7f", "007F"], ["\\x9b", "009B"]]) {
    const errs = errorsOf(plan(`scope: "a${esc}b"`));
    equal(errs.length, 1, errs.join("\n"));
    match(
      errs[0]!,
      new RegExp(`^p\\.yaml:10:12: scope "a\\\\.+b" of node "N1" contains a control character`),
    );
    match(errs[0]!, new RegExp(`\\(U\\+${code} at character 2\\)$`));
  }
});

Deno.test("loadPlan() refuses control characters in argv, acceptance, environment and model names", () => {
  const errs = errorsOf(plan([
    'acceptance: ["check\\e[2J"]',
    "worker:",
    "  type: command",
    '  argv: [python3, "train.py\\r"]',
    '  env: {GOOD: "a\\u0085b", "BAD NAME": x}',
  ].join("\n")));
  deepEqual(errs, [
    'p.yaml:10:18: acceptance argument of "N1" "check\\u001b[2J" contains a control character (U+001B at character 6)',
    'p.yaml:13:23: argv of "N1" "train.py\\r" contains a control character (U+000D at character 9)',
    'p.yaml:14:19: environment variable "GOOD" of "N1" "a\\u0085b" contains a control character (U+0085 at character 2)',
    'p.yaml:14:31: environment variable name "BAD NAME" of "N1" must match ^[A-Za-z_][A-Za-z0-9_]*$',
  ]);
  match(errorsOf(plan('worker: {type: agent, prompt: p, model: "gpt\\0"}'))[0]!, /NUL character/);
});

Deno.test("loadPlan() lets an argv or environment value carry a script over several lines, never an id", () => {
  const script =
    'worker: {type: command, argv: [python3, -c, "import sys\\nfor a in sys.argv:\\n\\tprint(a)"], ';
  const ok = loadPlan(plan(script + 'env: {CODE: "a\\nb"}}'), "p.yaml");
  deepEqual(ok.errors.map(formatDiagnostic), []);
  equal(ok.plan?.nodes.find((n) => n.id === "N1")?.worker?.type, "command");
  match(errorsOf(plan('scope: "N\\n1"'))[0] ?? "", /contains a control character \(U\+000A/);
});

Deno.test("loadPlan() refuses a scope longer than a path can safely be", () => {
  const errs = errorsOf(plan(`scope: ${"a/".repeat(MAX_SCOPE_LENGTH)}`));
  match(
    errs[0]!,
    new RegExp(`scope of node "N1" is ${2 * MAX_SCOPE_LENGTH} characters long \\(at most 255\\)`),
  );
});

Deno.test("loadPlan() refuses integers that are not exact and numbers that are not finite", () => {
  match(
    errorsOf(plan("budget: {ticks: 1e308}"))[0]!,
    /budget\.ticks must be an integer between ±9007199254740991/,
  );
  match(errorsOf(plan("mock: {score: .inf}"))[0]!, /mock\.score must be a number, got Infinity/);
  match(
    errorsOf(plan("worker: {type: builtin, name: make_data, args: {rows: .nan}}"))[0]!,
    /worker\.args\.rows must be a finite number, got NaN/,
  );
});

Deno.test("loadPlan() still accepts ordinary text with unicode, tabs and newlines where text belongs", () => {
  const r = loadPlan(
    plan('title: "Ablation — r² ≥ 0.9\\tnote"\nscope: "données/N1"').replace(
      "question: q",
      'question: "Q?\\nsecond line"',
    ),
    "p.yaml",
  );
  deepEqual(r.errors, []);
  equal(r.plan?.nodes[1]?.scope, "données/N1");
});

Deno.test("validatePlan() finds shared and nested scopes in either order, one finding per clash", () => {
  const at = () => ({ line: 1, col: 1 });
  const node = (id: string, scope: string) => ({ id, kind: "fast", role: "other", scope }) as const;
  const { errors } = validatePlan(
    { nodes: [node("A", "x/y"), node("B", "x"), node("C", "x/y/z"), node("D", "x/y")] } as Partial<PlanFile>,
    at,
    at,
  );
  deepEqual(errors.map((e) => e.message), [
    'scopes of "A" and "B" nest ("x" and "x/y")',
    'scopes of "C" and "A" nest ("x/y/z" and "x/y")',
    'scopes of "C" and "B" nest ("x/y/z" and "x")',
    'nodes "A" and "D" share scope "x/y"',
    'scopes of "D" and "B" nest ("x/y" and "x")',
    'scopes of "C" and "D" nest ("x/y" and "x/y/z")',
  ]);
});

Deno.test("loadPlan() survives a command worker whose argv failed the schema, and quotes a bad built-in", () => {
  const errs = errorsOf(plan('worker: {type: command, argv: "not a list"}\nacceptance: ["@ma\\enifest"]'));
  match(errs.join("\n"), /worker\.argv must be a list/);
  match(errs.join("\n"), /unknown built-in acceptance "@ma\\u001bnifest"/);
});
