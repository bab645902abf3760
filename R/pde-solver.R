# Sparse Cholesky solves of the free-node system A(c) u_f = b for the finite-element model
# of pde-mesh.R. The pattern of A does not depend on c, so the symbolic analysis (the
# fill-reducing ordering and the pattern of the factor) is done once, by Matrix::Cholesky()
# when the solver is created; every later matrix is factorised by update() of that
# CHMfactor, which calls CHOLMOD's cholmod_factorize_p on the existing factor: a numeric
# factorisation with the same permutation and pattern (Chen, Davis, Hager and Rajamanickam
# 2008, CHOLMOD). A simplicial LL' factor is kept: on the 30 x 30 mesh its update took
# 0.5 ms against 0.6-0.9 ms for the supernodal or LDL' forms and 0.8 ms for a fresh
# Cholesky() with its ordering and analysis. (Cholesky() itself must not be called again on
# a matrix whose values were changed in place: Matrix caches the factor in the matrix.)
# The solver counts factorisations and right-hand sides solved (each a forward and a back
# substitution with the factor), which is what the model costs.

new_pde_solver <- function(mesh) {
  matrix <- mesh$assembly$pattern
  matrix@x <- as.vector(mesh$assembly$map %*% rep(1, nrow(mesh$elements)))
  factor <- Matrix::Cholesky(matrix, perm = TRUE, LDL = FALSE, super = FALSE)
  matrix@factors <- list()  # drop the factor Cholesky() cached in the matrix: it goes stale
  counts <- c(factorizations = 0, solves = 0)
  factorize <- function(conductivity) {
    matrix@x <<- as.vector(mesh$assembly$map %*% conductivity)
    factor <<- Matrix::update(factor, matrix)
    counts[["factorizations"]] <<- counts[["factorizations"]] + 1
    invisible()
  }
  solve <- function(rhs) {
    rhs <- as.matrix(rhs)
    counts[["solves"]] <<- counts[["solves"]] + ncol(rhs)
    out <- as.matrix(Matrix::solve(factor, rhs, system = "A"))
    if (!all(is.finite(out))) {
      stop("the finite-element system is numerically singular at this conductivity field ",
           "(theta too far out in the tails)", call. = FALSE)
    }
    out
  }
  list(factorize = factorize, solve = solve,
       counts = function() counts,
       reset = function() counts[] <<- 0,
       factor = function() factor)
}

# Dirichlet data as a lifting: the nodal vector that carries the boundary values and is
# zero at the unknowns. With it, the free-node equations (A(c) u)_f = 0 read
# A_ff(c) u_f = -action(g) %*% c, a right-hand side linear in c whose matrix is computed
# once per boundary condition.
pde_lift <- function(mesh, boundary) {
  values <- numeric(nrow(mesh$nodes))
  at <- mesh$nodes[mesh$dirichlet, , drop = FALSE]
  values[mesh$dirichlet] <- boundary(at[, "x1"], at[, "x2"])
  list(values = values, rhs = -element_action(mesh, values))
}

# Nodal solution for element conductivities `conductivity`: one factorisation, one solve.
pde_forward <- function(mesh, solver, lift, conductivity) {
  solver$factorize(conductivity)
  u <- lift$values
  u[mesh$free] <- solver$solve(lift$rhs %*% conductivity)
  u
}

# Stand-alone solve for given conductivity and boundary data, both functions of (x1, x2)
# (the conductivity is evaluated at the element centres). Used to check the discretisation
# against exact solutions; the model itself keeps its mesh, solver and lifting.
pde_solve <- function(n_mesh, conductivity, boundary) {
  mesh <- pde_mesh(n_mesh)
  lift <- pde_lift(mesh, boundary)
  c_elem <- rep_len(conductivity(mesh$centres[, "x1"], mesh$centres[, "x2"]), nrow(mesh$elements))
  u <- pde_forward(mesh, new_pde_solver(mesh), lift, c_elem)
  list(mesh = mesh, u = u)
}
