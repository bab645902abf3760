# How each term of a multilevel GLM is parameterised, and the chains' start mapped to it.
#
# The joint density has no mode: as a term's standard deviation goes to 0 with its effects,
# the centred density grows without bound. The chains start near the mode of the
# non-centred parameterisation (b = D L z, z ~ N(0, I)), found by L-BFGS
# (R/start-noncentred.R).
#
# Each term is then sampled centred or non-centred: centred when the data say more about a
# level's effects than the prior does (Papaspiliopoulos, Roberts and Skold 2007), i.e. when
# the median over levels of tau_k^2 I_jk (I_jk the Fisher information of the level's data
# about effect k, at the mode) exceeds 1, non-centred otherwise. Without a mode the terms are
# non-centred (Stan's choice).

# The coordinates (1-based) of a term's sampled effects in the layout's blocks; none when its
# effects are integrated out.
term_effect_indices <- function(term, blocks) {
  b <- blocks[blocks$name == paste0("b:", term_key(term)), ]
  if (nrow(b) == 1L) b$offset + seq_len(b$size) else integer()
}

# The information ratio above which a term is sampled centred: 1, as in Papaspiliopoulos et
# al.'s Gibbs analysis; on inst/bench/parameterization_grid.R's 31 models the form it chose
# mixed better (min bulk ESS per gradient) in 30, and 0.88x as well in the last.
centring_threshold <- 1

choose_parameterization <- function(model, family, target_nc, start, spec) {
  nt <- length(model$glmer$terms)
  switch(model$glmer$parameterization,
         centered = return(rep(TRUE, nt)), noncentered = return(rep(FALSE, nt)))
  if (is.null(start$mode_nc)) return(rep(FALSE, nt))
  # Under prior_PD the chains see no data: the effects carry no information beyond the prior.
  kappa <- if (isTRUE(model$prior_PD)) rep(0, nt) else information_ratio(model, family, target_nc, start$mode_nc)
  structure(kappa > centring_threshold, information_ratio = kappa)
}

# For each term, the median over its levels of kappa_j = I_j tau^2 (averaged over the term's
# p columns): the information the level's rows carry about its effect (I_j, the Fisher
# information about eta summed over its rows, times Z^2) against the prior's precision
# 1 / tau^2 (Papaspiliopoulos, Roberts and Skold 2007: in the normal model the centred Gibbs
# sampler converges at rate 1 / (1 + kappa), the non-centred one at kappa / (1 + kappa)).
# tau^2 is not the variance at the non-centred mode theta: that joint mode sits where the
# prior of the sd and its log Jacobian put it, often at a large sd with near-unpenalised
# effects (infinite for a level whose rows all fall in one category). It is estimated by
# moments from the scores of the levels at effects 0 (the other parameters at the mode):
# G_j ~ I_j b_j + noise of variance I_j, so E[G_j^2 - I_j] = I_j^2 tau^2 and
# tau^2 = max(0, sum_j (G_j^2 - I_j) / sum_j I_j^2) (DerSimonian and Laird 1986's moments,
# on scores, which stay finite where the levels' estimates do not). A distributional
# formula's term reads I_j from the gradient instead (level_information()).
information_ratio <- function(model, family, target_nc, theta) {
  blocks <- target_nc$layout$blocks
  vapply(model$glmer$terms, function(term) {
    idx <- term_effect_indices(term, blocks)
    theta0 <- replace(theta, idx, 0)
    rep0 <- stats::setNames(as.numeric(target_nc$to_user(matrix(theta0, 1L))), target_nc$par_names)
    Z <- term$Z %||% matrix(1, length(term$group), 1L)
    I <- if (!is.null(term$dpar)) level_information(term, target_nc, theta0, idx, term_sigma(term, rep0)) else
      rowsum(row_information(model, family, rep0) * Z^2, term$group + 1L, reorder = TRUE)  # levels x p
    gz <- matrix(target_nc$value_grad(theta0)$gradient[idx], ncol = term$p, byrow = TRUE)
    G <- -gz %*% t(backsolve(chol(term_sigma(term, rep0)), diag(term$p)))  # d loglik / d b_j
    G <- G - I %*% diag(colSums(G) / colSums(I), term$p)  # the common shift, one step
    tau2 <- pmax(colSums(G^2 - I) / pmax(colSums(I^2), 1e-300), 0)
    stats::median(drop(I %*% tau2) / term$p)
  }, numeric(1))
}

# Levels x p: the information of each level's rows about its effects (observed, at effects 0),
# from differences of the non-centred target's gradient: with b_j = A z_j (A A' = Sigma) and
# U = -loglik + |z|^2 / 2, dU/dz_j = z_j - A' G_j (G_j = d loglik / d b_j), so moving every
# level's b_j by h along column c gives -dG_jc / h. For a distributional parameter, whose
# rows' Fisher information R does not write per family.
level_information <- function(term, target_nc, theta0, idx, Sigma) {
  p <- term$p
  J <- length(term$levels)
  A <- t(chol(Sigma))
  Ainv <- solve(A)
  grad_at <- function(th) matrix(target_nc$value_grad(th)$gradient[idx], ncol = p, byrow = TRUE)
  g0 <- grad_at(theta0)
  matrix(vapply(seq_len(p), function(c) {
    h <- 1e-4 * sqrt(Sigma[c, c])
    dz <- forwardsolve(A, replace(numeric(p), c, h))
    dG <- (matrix(dz, J, p, byrow = TRUE) - (grad_at(replace(theta0, idx, rep(dz, J))) - g0)) %*% Ainv
    pmax(-dG[, c] / h, 0)
  }, numeric(J)), J, p)
}

# The Fisher information about the linear predictor of each row at reported values `rep`
# (the family's, times the row's weight).
row_information <- function(model, family, rep) {
  m <- matrix(rep, 1L, dimnames = list(NULL, names(rep)))
  lp <- glmer_linpreds(list(model = model), m, NULL, list(terms = seq_along(model$glmer$terms)))
  eta <- drop(model$x %*% rep[model$coef_names]) + (model$offset %||% 0) + drop(lp$eta)
  aux <- lapply(with_dpar_draws(aux_draws(model, m), model, m, NULL, lp), as.vector)
  p <- list(eta = eta, aux = aux, family = family, trials = model$trials)
  family$entry$eta_information(p) * (model$prior_weights %||% 1)
}

# A term's covariance matrix from reported values.
term_sigma <- function(term, rep) {
  nm <- term_user_names(term)
  s <- rep[nm[-seq_len(length(term$levels) * term$p)]]
  S <- matrix(0, term$p, term$p)
  S[lower.tri(S, diag = TRUE)] <- s
  S + t(S) - diag(diag(S), term$p)
}

# The unit of a term's effects in the sampler's coordinates: the standardised response's for
# the mean's terms, none for a distributional parameter's (its link scale).
term_unit <- function(term, spec) if (is.null(term$dpar)) spec$y_scale else 1

# The non-centred start mapped to the sampling coordinates: each centred term's effects b =
# D L z at each chain's own point, and the inverse metric carried through that linear map
# at the anchor (b_j = A z_j, A = D L = chol(Sigma)).
centred_start <- function(start, target_nc, target, model, spec) {
  centred <- model$glmer$centred
  if (!any(centred)) return(start)
  blocks <- target$layout$blocks
  map_point <- function(theta) {
    rep <- as.numeric(target_nc$to_user(matrix(theta, 1L)))
    for (t in which(centred)) {
      b <- blocks[blocks$name == paste0("b:", term_key(model$glmer$terms[[t]])), ]
      idx <- b$offset + seq_len(b$size)
      theta[idx] <- rep[idx] / term_unit(model$glmer$terms[[t]], spec)
    }
    theta
  }
  start$inits$internal <- lapply(start$inits$internal, map_point)
  start$inits$user <- lapply(start$inits$internal, target$user_values)
  if (!is.null(start$inits$mode_point)) start$inits$mode_point <- map_point(start$inits$mode_point)
  if (!is.null(start$inv_metric)) {
    # The diagonal of M diag(v) M': the start's inverse metric stays a vector (memory linear in
    # the levels); the warmup learns the correlations within a level's effects.
    M <- centring_map(start$mode_nc, target_nc, model, spec, blocks)
    start$inv_metric <- lapply(start$inv_metric, function(v) as.numeric((M^2) %*% v))
  }
  start
}

# The linear map of the non-centred coordinates to the sampling ones at `mode`: identity,
# but b_j = A z_j for each centred term's levels (A = D L = chol(Sigma) there). Sparse: with
# thousands of levels (InstEval: d = 4,105) a dense map made the products of
# centred_start() cost d^3 each, minutes of the whole call; these cost d^2 p.
centring_map <- function(mode, target_nc, model, spec, blocks) {
  rep <- stats::setNames(as.numeric(target_nc$to_user(matrix(mode, 1L))), target_nc$par_names)
  d <- length(mode)
  keep <- rep(TRUE, d)
  ij <- list()
  for (t in which(model$glmer$centred)) {
    term <- model$glmer$terms[[t]]
    A <- t(chol(term_sigma(term, rep) / term_unit(term, spec)^2))
    b <- blocks[blocks$name == paste0("b:", term_key(term)), ]
    first <- b$offset + seq(0L, by = term$p, length.out = length(term$levels))  # each level's block
    keep[b$offset + seq_len(b$size)] <- FALSE
    ij[[length(ij) + 1L]] <- do.call(rbind, lapply(seq_len(term$p), function(i) {
      do.call(rbind, lapply(seq_len(term$p), function(j) cbind(first + i, first + j, A[i, j])))
    }))
  }
  ij[[length(ij) + 1L]] <- cbind(which(keep), which(keep), 1)
  ij <- do.call(rbind, ij)
  Matrix::sparseMatrix(i = ij[, 1], j = ij[, 2], x = ij[, 3], dims = c(d, d))
}
