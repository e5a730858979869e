# A background sleep the shell waits for.
sleep "$1" & wait
