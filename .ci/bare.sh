#!/usr/bin/env bash
# Runs COMMAND as a fresh machine would: bubblewrap, chromium and Slurm are hidden, nothing is uninstalled.
# A private mount namespace lays an overlay over /usr/bin and /usr/sbin whose whiteout entries (0:0 character
# devices) hide those programs; the overlay dies with the namespace, so nothing outside it changes.
# Needs root (or the right to unshare a mount namespace) and overlayfs.
#   .ci/bare.sh deno task test
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: .ci/bare.sh COMMAND [ARGS...]" >&2; exit 2; }

HIDE_BIN=(bwrap chromium chromium-browser google-chrome sbatch srun squeue sinfo scancel sacct scontrol salloc)
HIDE_SBIN=(slurmctld slurmd slurmdbd munged)

scratch=$(mktemp -d /tmp/arrow-bare.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for layer in bin sbin; do mkdir -p "$scratch/$layer/upper" "$scratch/$layer/work"; done
for p in "${HIDE_BIN[@]}"; do mknod "$scratch/bin/upper/$p" c 0 0; done
for p in "${HIDE_SBIN[@]}"; do mknod "$scratch/sbin/upper/$p" c 0 0; done

# The inner shell gets the scratch directory as $1 and the command after it.
status=0
unshare --mount --propagation private -- bash -c '
  set -e
  scratch=$1; shift
  mount -t overlay bare-bin -o "lowerdir=/usr/bin,upperdir=$scratch/bin/upper,workdir=$scratch/bin/work" /usr/bin
  mount -t overlay bare-sbin -o "lowerdir=/usr/sbin,upperdir=$scratch/sbin/upper,workdir=$scratch/sbin/work" /usr/sbin
  for p in bwrap chromium sbatch slurmctld; do
    if command -v "$p" >/dev/null 2>&1 || [ -e "/usr/bin/$p" ]; then echo "bare.sh: $p is still visible" >&2; exit 2; fi
  done
  unset SLURM_CONF
  exec "$@"' bare "$scratch" "$@" || status=$?
exit "$status"
