# nohup in the background with its pipes closed, and a script that exits at once.
nohup sleep "$1" >/dev/null 2>&1 </dev/null &
