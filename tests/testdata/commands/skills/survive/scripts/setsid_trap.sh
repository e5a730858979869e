# Its own session, TERM ignored, pipes closed: only a KILL of that process ends it.
setsid sh -c "trap '' TERM; sleep $1" sh "$1" >/dev/null 2>&1 </dev/null &
