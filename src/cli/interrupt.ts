/**
 * Ctrl-C and SIGTERM stop a run cleanly (workers stopped, black box consistent, resumable) instead of
 * killing the process: they abort the engine's signal.
 *
 * @module
 */

export interface Interrupt extends Disposable {
  signal: AbortSignal;
}

export function onInterrupt(): Interrupt {
  const abort = new AbortController();
  const onSig = () => abort.abort();
  Deno.addSignalListener("SIGINT", onSig);
  Deno.addSignalListener("SIGTERM", onSig);
  return {
    signal: abort.signal,
    [Symbol.dispose]() {
      Deno.removeSignalListener("SIGINT", onSig);
      Deno.removeSignalListener("SIGTERM", onSig);
    },
  };
}
