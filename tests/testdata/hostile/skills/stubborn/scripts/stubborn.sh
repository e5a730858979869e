# A process in its own session that ignores TERM, one in the group that ignores TERM, and a
# foreground sleep in a shell that ignores TERM too: only KILL, of the group and of the escaped
# process, ends them all.
setsid sh -c "trap '' TERM; exec sleep $1" >/dev/null 2>&1 </dev/null &
(trap '' TERM; exec sleep "$1") >/dev/null 2>&1 </dev/null &
trap '' TERM
sleep "$1"
