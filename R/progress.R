# Progress while the user waits (progress = TRUE), on standard output like the chains' own
# lines (the core's ProgressLog, driver/run_chain.hpp): the chains print after their first
# iteration, every 10% of their iterations and at least every progress_seconds(); the mode
# search before the chains prints when it starts and ends, and as often in between.

# Seconds between lines of a long-running step (the option is for tests).
progress_seconds <- function() getOption("vhmc.progress_seconds", 5)

progress_line <- function(progress, fmt, ...) {
  if (isTRUE(progress)) cat(sprintf(fmt, ...), "\n", sep = "")
  invisible()
}

# For the n-th evaluation of a search: prints "<label>: n evaluations (t s)" once
# progress_seconds() have passed since the last line.
evaluation_ticker <- function(progress, label) {
  start <- last <- proc.time()[["elapsed"]]
  function(n) {
    if (!isTRUE(progress)) return(invisible())
    now <- proc.time()[["elapsed"]]
    if (now - last < progress_seconds()) return(invisible())
    last <<- now
    progress_line(TRUE, "%s: %d evaluations (%.0f s)", label, n, now - start)
  }
}
