/**
 * `arrow taint <run> <node> --reason …`: see request.ts.
 *
 * @module
 */
import { requestHelp, requestMain } from "./request.ts";

export const help = requestHelp("taint");
export const main = (argv: string[]) => requestMain("taint", argv);
