# A double fork: the subshell starts a sleep and exits, so the sleep is orphaned at once.
(sleep "$1" >/dev/null 2>&1 </dev/null &)
