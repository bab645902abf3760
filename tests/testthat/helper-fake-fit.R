# Fake vhmc fits built directly with the internal constructor, so the fit
# methods, conversions and diagnostics can be tested without running a sampler.

fake_sampler <- function(name = c("nuts", "hmc", "sgld"), max_treedepth = 10,
                         adapt_delta = 0.8, metric = "diag") {
  name <- match.arg(name)
  s <- switch(name,
    nuts = list(name = "nuts", adapt_delta = adapt_delta,
                max_treedepth = max_treedepth, metric = metric),
    hmc = list(name = "hmc", steps = NULL, step_size = NULL,
               adapt_delta = adapt_delta, metric = metric),
    sgld = list(name = "sgld", batch_size = 10, step_size = 1e-3)
  )
  structure(s, class = c(paste0("vhmc_", name), "vhmc_sampler"))
}

# Build a fake fit.
#   n_chains, n_iter: saved draws per chain; variables: names.
#   chain_shift: numeric per chain added to every draw (non-mixing chains).
#   ar: AR(1) coefficient of the draws within a chain (0 = iid).
#   n_divergent, n_treedepth_hits: integer per chain (recycled).
#   energy: "iid" (E-BFMI about 2) or "random_walk" per chain (recycled).
#   diag_cols: which Stan columns the sampler reports.
make_fake_fit <- function(n_chains = 2, n_iter = 100,
                          variables = c("a", "b", "beta[1]"),
                          warmup = 500, thin = 2, seed = 1,
                          chain_shift = 0, ar = 0,
                          n_divergent = c(1, 1), n_treedepth_hits = 0,
                          energy = "iid",
                          sampler = "nuts",
                          diag_cols = c("accept_stat__", "stepsize__",
                                        "treedepth__", "n_leapfrog__",
                                        "divergent__", "energy__")) {
  withr::with_seed(seed, {
    n_vars <- length(variables)
    chain_shift <- rep_len(chain_shift, n_chains)
    arr <- array(NA_real_, dim = c(n_iter, n_chains, n_vars),
                 dimnames = list(NULL, NULL, variables))
    for (ch in seq_len(n_chains)) {
      for (v in seq_len(n_vars)) {
        z <- stats::rnorm(n_iter)
        if (ar != 0) {
          z <- as.numeric(stats::filter(z * sqrt(1 - ar^2), ar,
                                        method = "recursive"))
        }
        arr[, ch, v] <- v + z + chain_shift[ch]
      }
    }
    draws <- posterior::as_draws_array(arr)

    n_divergent <- rep_len(n_divergent, n_chains)
    n_treedepth_hits <- rep_len(n_treedepth_hits, n_chains)
    energy <- rep_len(energy, n_chains)
    smp <- fake_sampler(sampler)
    max_td <- if (is.null(smp$max_treedepth)) 10 else smp$max_treedepth
    diagnostics <- lapply(seq_len(n_chains), function(ch) {
      td <- sample(2:4, n_iter, replace = TRUE)
      td[seq_len(n_treedepth_hits[ch]) * 3] <- max_td
      div <- integer(n_iter)
      div[seq_len(n_divergent[ch]) * 5 + ch] <- 1L
      en <- if (energy[ch] == "random_walk") {
        cumsum(stats::rnorm(n_iter))
      } else {
        stats::rnorm(n_iter, 10, 2)
      }
      d <- data.frame(
        accept_stat__ = stats::runif(n_iter, 0.6, 1),
        stepsize__ = rep(0.5 + ch / 10, n_iter),
        treedepth__ = as.integer(td),
        n_leapfrog__ = as.integer(2^td - 1),
        divergent__ = div,
        energy__ = en
      )
      d[, diag_cols, drop = FALSE]
    })
  })

  iter <- warmup + thin * n_iter
  adaptation <- lapply(seq_len(n_chains), function(ch) {
    list(step_size = 0.5 + ch / 10,
         inv_metric = stats::setNames(rep(1, length(variables)), variables))
  })
  counts <- data.frame(
    chain = seq_len(n_chains),
    n_grad = 1000L * seq_len(n_chains),
    n_grad_warmup = 600L * seq_len(n_chains),
    n_grad_sampling = 400L * seq_len(n_chains),
    n_potential = 0L,
    target_errors = 0L
  )
  timing <- data.frame(
    chain = seq_len(n_chains),
    warmup_seconds = 0.25 * seq_len(n_chains),
    sampling_seconds = 0.5 * seq_len(n_chains)
  )
  inits <- lapply(seq_len(n_chains), function(ch) {
    stats::setNames(rep(0, length(variables)), variables)
  })
  vhmc:::new_vhmc_fit(
    draws = draws,
    diagnostics = diagnostics,
    adaptation = adaptation,
    counts = counts,
    timing = timing,
    sampler = smp,
    model = list(type = "custom"),
    args = list(chains = n_chains, iter = iter, warmup = warmup, thin = thin,
                seed = seed, cores = 1L),
    inits = inits,
    call = quote(vhmc_sample(log_density = f, init = c(a = 0, b = 0)))
  )
}

# A well-mixed fit: 4 chains x 1000 iid draws, no sampler problems.
make_clean_fit <- function(...) {
  args <- utils::modifyList(
    list(n_chains = 4, n_iter = 1000, warmup = 1000, thin = 1,
         n_divergent = 0, seed = 2024),
    list(...)
  )
  do.call(make_fake_fit, args)
}

# Run `expr`, muffling and returning the messages of all warnings.
collect_warnings <- function(expr) {
  msgs <- character()
  value <- withCallingHandlers(
    expr,
    warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  list(value = value, warnings = msgs)
}
