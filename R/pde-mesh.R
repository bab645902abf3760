# Mesh and finite-element assembly for div(c grad u) = 0 on the unit square, discretised by
# the Galerkin method with bilinear (Q1) elements on a uniform n x n grid of squares, as in
# Zhang, Shahbaba and Zhao (2017, eq. 13), after Dashti and Stuart (2011) and Conrad et al.
# (2014). The conductivity is constant on each element (its value at the element centre), so
# the global stiffness matrix is A(c) = sum_e c_e K with a single unit-conductivity element
# matrix K: A is linear in c, its sparsity pattern never changes, and its nonzero values are
# a fixed sparse linear map of c. Everything that depends only on the mesh is computed here,
# once per model.
#
# Numbering: node (i, j) at (i h, j h), i, j = 0..n, has index i + j (n + 1) + 1 (x1 runs
# fastest); element (i, j), whose lower-left node is (i, j), has index i + j n + 1, and its
# local nodes run counterclockwise from the lower left. Nodes on x2 = 0 and x2 = 1 carry
# Dirichlet data; nodes on x1 = 0 and x1 = 1 carry only the natural zero-flux condition,
# so they are unknowns like the interior nodes.

pde_mesh <- function(n) {
  grid <- (0:n) / n
  nodes <- cbind(x1 = rep(grid, n + 1), x2 = rep(grid, each = n + 1))
  lower_left <- rep(0:(n - 1), n) + rep(0:(n - 1), each = n) * (n + 1) + 1
  elements <- cbind(lower_left, lower_left + 1, lower_left + n + 2, lower_left + n + 1)
  centre <- (seq_len(n) - 0.5) / n
  dirichlet <- c(seq_len(n + 1), n * (n + 1) + seq_len(n + 1))
  free <- setdiff(seq_len(nrow(nodes)), dirichlet)
  free_index <- integer(nrow(nodes))
  free_index[free] <- seq_along(free)
  mesh <- list(n = n, grid = grid, nodes = nodes, elements = unname(elements),
               centre = centre, centres = cbind(x1 = rep(centre, n), x2 = rep(centre, each = n)),
               dirichlet = dirichlet, free = free, free_index = free_index,
               stiffness = q1_stiffness())
  mesh$assembly <- pde_assembly(mesh)
  mesh$action <- action_template(mesh)
  mesh
}

# Stiffness matrix of the bilinear square element for unit conductivity, the integrals of
# grad(phi_a) . grad(phi_b) over the element, local nodes counterclockwise from the lower
# left. In two dimensions it does not depend on the element's size.
q1_stiffness <- function() {
  matrix(c(4, -1, -2, -1,
           -1, 4, -1, -2,
           -2, -1, 4, -1,
           -1, -2, -1, 4), 4, 4) / 6
}

# The free-node block of A(c) as a symmetric sparse pattern (upper triangle, compressed
# columns) and the sparse map from the element conductivities to its nonzero values:
# A@x = map %*% c. Entry (a, b) of element e adds K[a, b] c_e at (node_a, node_b); entries
# that land on the same position are summed by the product with c. Column-major linear
# positions sort exactly as compressed-column storage does, so position k of the sorted
# unique positions is slot x[k] of the pattern.
pde_assembly <- function(mesh) {
  n_elem <- nrow(mesh$elements)
  n_free <- length(mesh$free)
  local <- expand.grid(a = 1:4, b = 1:4)
  row <- mesh$free_index[mesh$elements[, local$a]]
  col <- mesh$free_index[mesh$elements[, local$b]]
  keep <- row > 0 & col > 0 & row <= col
  key <- (as.numeric(col[keep]) - 1) * n_free + row[keep]
  positions <- sort(unique(key))
  map <- Matrix::sparseMatrix(
    i = match(key, positions), j = rep(seq_len(n_elem), 16)[keep],
    x = rep(mesh$stiffness[as.matrix(local)], each = n_elem)[keep],
    dims = c(length(positions), n_elem))
  pattern <- Matrix::sparseMatrix(
    i = as.integer((positions - 1) %% n_free + 1), j = as.integer((positions - 1) %/% n_free + 1),
    x = rep(1, length(positions)), dims = c(n_free, n_free), symmetric = TRUE)
  list(map = map, pattern = pattern)
}

# Template of the element action: an n_free x n_elem sparse matrix whose column e is
# K u_e (u restricted to element e) at the element's free nodes. `source` says which entry
# of the n_elem x 4 matrix of local actions fills each nonzero slot.
action_template <- function(mesh) {
  rows <- mesh$free_index[mesh$elements]
  keep <- rows > 0
  template <- Matrix::sparseMatrix(
    i = rows[keep], j = rep(seq_len(nrow(mesh$elements)), 4)[keep], x = as.numeric(which(keep)),
    dims = c(length(mesh$free), nrow(mesh$elements)))
  list(template = template, source = as.integer(template@x))
}

# The element actions of a nodal vector u, (K u_e) restricted to the free nodes, one column
# per element. Every derivative of the discrete solution is a product with such a matrix:
# dA/dc_e u = column e, so A(c) u = action(u) %*% c on the free nodes.
element_action <- function(mesh, u) {
  local <- matrix(u[mesh$elements], ncol = 4) %*% mesh$stiffness
  out <- mesh$action$template
  out@x <- local[mesh$action$source]
  out
}

# Bilinear interpolation of nodal values at points of the unit square, as a sparse matrix
# (points x nodes): the finite-element solution evaluated at the points. Points within
# rounding of a grid line are snapped to it, so that observations at mesh nodes read the
# nodal values exactly.
pde_interpolation <- function(mesh, points) {
  n <- mesh$n
  s <- as.matrix(points) * n
  snapped <- round(s)
  s[abs(s - snapped) < 1e-8] <- snapped[abs(s - snapped) < 1e-8]
  cell <- pmin(floor(s), n - 1)
  xi <- s - cell
  lower_left <- cell[, 1] + cell[, 2] * (n + 1) + 1
  weights <- cbind((1 - xi[, 1]) * (1 - xi[, 2]), xi[, 1] * (1 - xi[, 2]),
                   xi[, 1] * xi[, 2], (1 - xi[, 1]) * xi[, 2])
  nodes <- cbind(lower_left, lower_left + 1, lower_left + n + 2, lower_left + n + 1)
  Matrix::drop0(Matrix::sparseMatrix(
    i = rep(seq_len(nrow(s)), 4), j = as.vector(nodes), x = as.vector(weights),
    dims = c(nrow(s), nrow(mesh$nodes))))
}
