/**
 * Player icons as inline SVG, so they look the same whatever fonts the machine has.
 *
 * @module
 */

export type IconName = "start" | "back" | "play" | "pause" | "step" | "end";

const PATHS: Record<IconName, string> = {
  start: "M3 2h2v12H3z M14 2v12L6 8z",
  back: "M12 2v12L4 8z",
  play: "M4 2v12l10-6z",
  pause: "M3 2h4v12H3z M9 2h4v12H9z",
  step: "M3 2v12l7-6z M11 2h2v12h-2z",
  end: "M2 2v12l8-6z M11 2h2v12h-2z",
};

export function Icon({ name }: { name: IconName }) {
  return (
    <svg class="picon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <path d={PATHS[name]} fill="currentColor" />
    </svg>
  );
}
