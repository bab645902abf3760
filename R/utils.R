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

# R's just-in-time compiler off until the calling function returns. vhmc's R code is
# installed without byte code (ByteCompile: false keeps the installed size under R CMD
# check's 5 MB), and the JIT then compiles the closures, loops and methods that each fit
# makes afresh, on every call: about 2 s of a multilevel fit (brms's inhaler model, 4 chains
# on 2 cores, a second call in a session: 5.5 s with the JIT, 3.7-4.6 s without, 3.2-3.8 s
# byte-compiled). A GLM fit runs no R code of the user's, so its front ends turn the JIT off
# (R targets keep it: users' functions gain).
jit_off_until_return <- function(envir = parent.frame()) {
  old <- compiler::enableJIT(0L)
  do.call(on.exit, list(bquote(compiler::enableJIT(.(old))), add = TRUE), envir = envir)
  invisible(old)
}
