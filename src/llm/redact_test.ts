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

Deno.test("Redactor.text() removes long tokens after key=, token=, secret= in any case", () => {
  const r = new Redactor([]);
  equal(r.text("url?key=0123456789abcdef0123456789abcdef&x=1"), "url?key=[REDACTED]&x=1");
  equal(r.text("token: dGhpcyBpcyBhIGxvbmcgc2VjcmV0IQ=="), "token: [REDACTED]");
  equal(r.text("use access_token=ya29.A0ARrdaM-abcdefghijkl now"), "use access_token=[REDACTED] now");
  equal(r.text('{"Secret":"x","secret=ABCDEFGHIJKLMNOPQRST"}'), '{"Secret":"x","secret=[REDACTED]"}');
  // A short value or a word is prose, not a credential; a hash under another name is left.
  equal(r.text("token=abc, key: value"), "token=abc, key: value");
  equal(r.text("monkey=0123456789abcdef0123456789"), "monkey=0123456789abcdef0123456789");
  equal(r.text("data_hash=0123456789abcdef0123456789abcdef"), "data_hash=0123456789abcdef0123456789abcdef");
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
