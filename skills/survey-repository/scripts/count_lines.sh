#!/bin/sh
# Counts files and lines by extension under the current folder (or the folders given), skipping
# .git, runs and node_modules. Output: "extension files lines" rows, most lines first.
# Used by the survey-repository skill through skills.run_script; it only reads.
set -eu
if [ "$#" -eq 0 ]; then set -- .; fi
for root in "$@"; do
  find "$root" \( -name .git -o -name runs -o -name node_modules \) -prune -o -type f -print
done | awk '
  {
    path = $0
    name = path; sub(/.*\//, "", name)
    ext = "(none)"
    if (match(name, /.\.[^.]+$/)) ext = substr(name, RSTART + 1)
    n = 0
    while ((getline line < path) > 0) n++
    close(path)
    files[ext] += 1; lines[ext] += n
  }
  END { for (e in files) printf "%s %d %d\n", e, files[e], lines[e] }
' | sort -k3 -n -r
