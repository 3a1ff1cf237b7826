import { deepEqual, equal, match } from "node:assert/strict";
import { formatDiagnostic, MAX_FLOW_DEPTH, parseYaml } from "./load.ts";

const errorsOf = (text: string) => parseYaml(text, "p.yaml").errors.map(formatDiagnostic);

Deno.test("parseYaml() refuses flow collections nested past the limit, at the bracket, before parsing", () => {
  const deep = "a: " + "[".repeat(200_000);
  deepEqual(errorsOf(deep), [
    `p.yaml:1:${4 + MAX_FLOW_DEPTH}: YAML: collections nested deeper than 64 levels`,
  ]);
  deepEqual(errorsOf("a:\n  b: " + "{x: ".repeat(MAX_FLOW_DEPTH) + "1" + "}".repeat(MAX_FLOW_DEPTH)), []);
  match(
    errorsOf("- " + "[".repeat(MAX_FLOW_DEPTH + 1) + "]".repeat(MAX_FLOW_DEPTH + 1))[0]!,
    /^p\.yaml:1:67: /,
  );
});

Deno.test("parseYaml() counts no bracket in quoted strings, comments, block scalars or plain text", () => {
  const many = "[".repeat(3 * MAX_FLOW_DEPTH);
  const text = [
    `title: "${many}"`,
    `single: '${many} it''s'`,
    `plain: f(x)${many}`,
    `# ${many}`,
    `prompt: |`,
    `  ${many}`,
    ``,
    `  ${many}`,
    `folded: >-`,
    `  ${many}`,
    `multi: "first line`,
    `  ${many} still quoted"`,
    `list: [a, "b ${many}", 'c']`,
    `anchored: &x [1, 2]`,
  ].join("\n");
  deepEqual(errorsOf(text), []);
});

Deno.test("parseYaml() makes parser messages printable and names a parser stack overflow", () => {
  const e = errorsOf('a: !t\u001b[2J x\n"unterminated');
  equal(e.length > 0, true);
  for (const m of e) equal([...m].some((c) => c.charCodeAt(0) < 0x20), false, m);
  // Block nesting (indentation) is not bounded by the pre-check; the parser's own overflow is reported.
  const nested = Array.from({ length: 3000 }, (_, i) => " ".repeat(i) + "- ").join("\n") + "x";
  match(errorsOf(nested).join("\n"), /YAML: the document is nested too deeply to read/);
});

Deno.test("parseYaml() counts brackets that follow a closed flow collection", () => {
  const text = "nodes:\n  - { id: H, kind: fast }" + "{".repeat(5 * MAX_FLOW_DEPTH) + "\n";
  match(errorsOf(text)[0]!, /^p\.yaml:2:\d+: YAML: collections nested deeper than 64 levels$/);
});
