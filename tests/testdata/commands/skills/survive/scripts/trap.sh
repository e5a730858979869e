# A child that ignores TERM, and a foreground sleep: only KILL of the whole group ends both.
(trap '' TERM; sleep "$1") & sleep "$1"
