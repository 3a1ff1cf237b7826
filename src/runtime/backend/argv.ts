/**
 * A worker's argv as the plan wrote it, made concrete: placeholders expanded, and words that name a file
 * next to the plan made absolute (a program runs in its node's scope, not where the plan is).
 *
 * @module
 */

/** Expands the placeholders {scope} {run} {node} {nodes} {plan} {fault_log} of one argv word. */
export function expand(arg: string, vars: Record<string, string>): string {
  return arg.replace(/\{(scope|run|node|nodes|plan|fault_log)\}/g, (_, k: string) => vars[k] ?? "");
}

/**
 * An argv word that names a file next to the plan (`train.py`, `lib/eval.py`) as an absolute path: a
 * program runs in its node's scope, not where the plan is. Flags, absolute paths, placeholders and words
 * that name no such file are left as they are.
 */
export function besidePlan(word: string, dir: string | undefined): string {
  if (!dir || !word || word.startsWith("/") || word.startsWith("-") || word.includes("{")) return word;
  try {
    return Deno.lstatSync(`${dir}/${word}`).isFile ? `${dir}/${word}` : word;
  } catch {
    return word;
  }
}
