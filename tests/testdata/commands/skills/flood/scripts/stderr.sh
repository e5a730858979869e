yes >&2
