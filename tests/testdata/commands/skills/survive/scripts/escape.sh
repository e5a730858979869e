# A process that leaves the process group (its own session), and a foreground sleep.
setsid sleep "$1" >/dev/null 2>&1 </dev/null &
sleep "$1"
