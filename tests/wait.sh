# Waiting helpers for the shell tests (sourced, not run): a check of what a
# background process does waits for the state it reaches, however loaded the
# machine, instead of a fixed sleep before one look (one such look failed in
# CI).  Not a test framework: run/check/has stay in each script.

# until_true SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds
# (0) or SECONDS of wall-clock time have passed (1; to the second: the last
# run starts at most SECONDS + 1 s after the first)
until_true() {
    _end=$(($(date +%s) + $1))
    shift
    while ! "$@"; do
        [ "$(date +%s)" -lt "$_end" ] || return 1
        sleep 0.1
    done
}

# lines_at_least N PATTERN FILE: FILE has at least N lines matching PATTERN
# (a file not there yet has none)
lines_at_least() {
    _c=$(grep -c -- "$2" "$3" 2>/dev/null)
    [ "${_c:-0}" -ge "$1" ]
}

# catches PID: the process has installed its SIGINT and SIGTERM handlers
# (/proc/PID/status SigCgt; a signal before that ends it, or is ignored in a
# background job)
catches() {
    _m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) && [ -n "$_m" ] || return 1
    _m=${_m#????????}
    [ $((0x$_m & 0x4002)) = $((0x4002)) ]
}
