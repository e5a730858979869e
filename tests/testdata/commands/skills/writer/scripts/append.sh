# Appends a line to the file whose path is the arguments joined by "/" (["", "tmp", "x"] is
# /tmp/x): no single argument looks like a path, so only the confinement decides where it lands.
target=$(IFS=/; printf '%s' "$*")
printf 'written by a skill script\n' >> "$target"
