/**
 * Errors of the LLM room: a configuration problem the user must fix (exit 1, names the variable), and a
 * failed call that says what went wrong and whether retrying could help.
 *
 * @module
 */

/** Missing or bad settings (an unset ARROW_LLM_API_KEY, a base URL that is not http(s), no model). */
export class LlmConfigError extends Error {
  override name = "LlmConfigError";
}

export type LlmErrorKind =
  | "http"
  | "api"
  | "timeout"
  | "aborted"
  | "network"
  | "malformed"
  | "truncated"
  | "too_large";

/** A chat call that failed; `retryable` says whether the same request may succeed later. */
export class LlmError extends Error {
  override name = "LlmError";
  attempts = 1;
  constructor(
    message: string,
    readonly kind: LlmErrorKind,
    readonly retryable: boolean,
    readonly status: number | null = null,
    /** Wait the server asked for (Retry-After), in ms. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}
