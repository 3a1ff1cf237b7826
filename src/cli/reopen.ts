/**
 * `arrow reopen <run> <node> --reason …`: see request.ts.
 *
 * @module
 */
import { requestHelp, requestMain } from "./request.ts";

export const help = requestHelp("reopen");
export const main = (argv: string[]) => requestMain("reopen", argv);
