# Seeds and small helpers.

# A seed for the core: a whole number in [1, 2^31 - 1]; NULL draws one from R's RNG so that
# set.seed() before the call also makes the fit reproducible.
resolve_seed <- function(seed) {
  if (is.null(seed)) return(sample.int(.Machine$integer.max, 1L))
  if (!is_count(seed, 0) || seed > .Machine$integer.max) {
    stop_arg("seed", sprintf("must be NULL or a whole number in [0, %d], not %s",
                             .Machine$integer.max, describe(seed)))
  }
  as.integer(seed)
}

# Evaluate expr with R's RNG set to `seed`, leaving the user's RNG state untouched.
with_local_seed <- function(seed, expr) {
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had) old <- get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", old, envir = env) else
    rm(".Random.seed", envir = env), add = TRUE)
  set.seed(seed)
  expr
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Seconds that expr took to evaluate, after evaluating it in the caller's frame. Unlike
# system.time() it prints nothing ("Timing stopped at: ...") when expr is interrupted.
elapsed_seconds <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  force(expr)
  proc.time()[["elapsed"]] - t0
}
