/**
 * Where a run keeps an agent node's LLM records — the same for agent workers, the proxy and the engine
 * that sums usage: usage lines under `.arrow/usage/` (hidden from sandboxed nodes), transcripts under
 * `logs/agent/` (evidence for the dashboard's drawer).
 *
 * @module
 */

export function usagePath(runDir: string, node: string): string {
  return `${runDir}/.arrow/usage/${node}.jsonl`;
}

export function transcriptPath(runDir: string, node: string): string {
  return `${runDir}/logs/agent/${node}.jsonl`;
}
