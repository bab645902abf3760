# Wall-clock stamps of a one-chain vhmc fit's saved draws, shared by the benchmarks that plot
# an error against elapsed seconds (vhmc_logistic.R, vhmc_ica.R). vhmc reports each chain's
# warmup and sampling wall time (steady clock); `wall` is the wall time of the whole call, and
# the rest (mode search of variational_hmc, initial values, the fit's post-processing) is
# counted as spent before warmup, so every method pays its own overhead. Within sampling,
# draw k is stamped in proportion to the work done up to it: `work` per draw (leapfrog steps
# for NUTS, HMC and variational_hmc, whose iteration cost is proportional to them; NULL for a
# constant cost per draw).
draw_stamps <- function(fit, wall, work = NULL) {
  tm <- fit$timing
  n <- nrow(fit$diagnostics[[1]])
  w <- if (is.null(work)) rep(1, n) else fit$diagnostics[[1]][[work]]
  overhead <- wall - tm$warmup_seconds - tm$sampling_seconds
  list(stamp = overhead + tm$warmup_seconds + tm$sampling_seconds * cumsum(w) / sum(w),
       overhead = overhead, warmup = tm$warmup_seconds, sampling = tm$sampling_seconds,
       start = overhead + tm$warmup_seconds)
}

# Time a call: its value, wall seconds and CPU seconds (this process and its children).
timed <- function(expr) {
  t0 <- proc.time()
  value <- expr
  el <- proc.time() - t0
  list(value = value, wall = el[["elapsed"]],
       cpu = sum(el[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE))
}
