/**
 * Secrets never reach a transcript: the API key, any Authorization/Bearer value, and the values of
 * environment variables whose names contain KEY, TOKEN, SECRET or PASSWORD are replaced by [REDACTED].
 *
 * @module
 */

export const REDACTED = "[REDACTED]";
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** Values of the variables in `env` whose names look secret (short values are left: they match too much). */
export function secretValues(env: Record<string, string>): string[] {
  return Object.entries(env).filter(([k, v]) => SECRET_NAME.test(k) && v.length >= 6).map(([, v]) => v);
}

/** Names of environment variables a sandboxed command must not inherit. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || name === "ARROW_CONFIG" || name.startsWith("ARROW_LLM_");
}

export class Redactor {
  readonly #secrets: string[];

  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...new Set([...secrets].filter((s) => s.length >= 6))].sort((a, b) =>
      b.length - a.length
    );
  }

  text(s: string): string {
    let out = s;
    for (const secret of this.#secrets) out = out.split(secret).join(REDACTED);
    return out
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=:-]{6,}/gi, `$1 ${REDACTED}`)
      .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, REDACTED)
      .replace(
        /\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g,
        `$1=${REDACTED}`,
      )
      .replace(/("?(?:authorization|api[_-]?key|x-api-key)"?\s*[:=]\s*)"[^"]*"/gi, `$1"${REDACTED}"`)
      // key=…, token: …, secret=… in any case, when what follows is long enough to be a credential (hex,
      // base64, URL-safe), not a word: `token=abc` in prose stays, `token=3f9a…(16+)` goes.
      .replace(
        /\b((?:api[_-]?|access[_-]?|auth[_-]?)?(?:key|token|secret|password))(\s*[=:]\s*)([A-Za-z0-9+/_.~-]{16,}={0,2})/gi,
        (m, name: string, sep: string, value: string) =>
          value === REDACTED || value.startsWith("[") ? m : `${name}${sep}${REDACTED}`,
      );
  }

  /** A deep copy with every string redacted. */
  deep<T>(value: T): T {
    if (typeof value === "string") return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.deep(v);
      return out as T;
    }
    return value;
  }
}
