import { equal, ok } from "node:assert/strict";
import { isSecretName, Redactor, secretValues } from "./redact.ts";

Deno.test("Redactor.text() removes known secrets, bearer tokens, sk- keys and secret assignments", () => {
  const r = new Redactor(["s3cr3t-value-1", "x"]);
  equal(r.text("token s3cr3t-value-1 here"), "token [REDACTED] here");
  equal(r.text("Authorization: Bearer abc.def-123456"), "Authorization: Bearer [REDACTED]");
  equal(r.text("key sk-proj-ABCDEFGHIJKLMNOPqrst"), "key [REDACTED]");
  equal(r.text("export OPENAI_API_KEY=whatever123"), "export OPENAI_API_KEY=[REDACTED]");
  equal(r.text('{"api_key": "abc123456"}'), '{"api_key": "[REDACTED]"}');
  // Too short to be a secret: left alone (it would match everywhere).
  equal(r.text("x marks the spot"), "x marks the spot");
  equal(r.text("monkey=banana"), "monkey=banana");
});

Deno.test("Redactor.deep() redacts every string of a nested value and keeps the rest", () => {
  const r = new Redactor(["hunter22"]);
  const out = r.deep({ a: ["hunter22", 3, null], b: { c: "say hunter22" }, d: true });
  equal(JSON.stringify(out), '{"a":["[REDACTED]",3,null],"b":{"c":"say [REDACTED]"},"d":true}');
});

Deno.test("secretValues() and isSecretName() pick variables by name", () => {
  const vals = secretValues({
    GITHUB_TOKEN: "ghp_123456",
    PATH: "/usr/bin",
    DB_PASSWORD: "pw",
    AWS_SECRET_ACCESS_KEY: "abcdefgh",
  });
  equal(vals.sort().join(","), "abcdefgh,ghp_123456");
  ok(isSecretName("ARROW_LLM_BASE_URL") && isSecretName("ARROW_CONFIG") && isSecretName("my_api_key"));
  ok(!isSecretName("ARROW_SCOPE") && !isSecretName("HOME"));
});
