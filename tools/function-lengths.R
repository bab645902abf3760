# Lists functions longer than the house limits: R functions over 60 lines (R/, generated
# RcppExports.R aside) and C++ functions over 80 lines (inst/include). Run from the
# repository root: Rscript tools/function-lengths.R   (exit status 1 when any is found)

r_lengths <- function(file) {
  exprs <- parse(file, keep.source = TRUE)
  out <- list()
  walk <- function(e, name) {
    if (is.call(e) && identical(e[[1]], as.name("function"))) {
      sr <- attr(e, "srcref") %||% utils::getSrcref(e)
      if (!is.null(sr)) out[[length(out) + 1]] <<- data.frame(file = file, name = name,
                                                              lines = sr[3] - sr[1] + 1)
    }
    if (is.call(e)) for (k in seq_along(e)[-1]) if (!is.null(e[[k]]) && !missing(e[[k]])) walk(e[[k]], name)
  }
  `%||%` <- function(a, b) if (is.null(a)) b else a
  srcrefs <- attr(exprs, "srcref")
  for (i in seq_along(exprs)) {
    e <- exprs[[i]]
    if (is.call(e) && as.character(e[[1]]) %in% c("<-", "=") && is.call(e[[3]]) &&
        identical(e[[3]][[1]], as.name("function"))) {
      sr <- srcrefs[[i]]
      out[[length(out) + 1]] <- data.frame(file = file, name = deparse(e[[2]]), lines = sr[3] - sr[1] + 1)
    }
  }
  do.call(rbind, out)
}

# C++: a function starts at a line ending in "{" that looks like a definition (a ")" before
# the brace, not a control statement) and ends at its matching brace.
cpp_lengths <- function(file) {
  x <- readLines(file, warn = FALSE)
  code <- sub("//.*$", "", x)
  res <- list()
  depth <- 0
  open <- list()
  for (i in seq_along(code)) {
    line <- code[i]
    is_def <- grepl("\\)\\s*(const)?\\s*(override)?\\s*(noexcept)?\\s*(->\\s*[^{]+)?\\{\\s*$", line) &&
      !grepl("^\\s*(if|for|while|switch|else|do|catch)\\b|\\b(if|for|while|switch)\\s*\\(", line) &&
      !grepl("\\[.*\\]\\s*\\(.*\\)\\s*(mutable)?\\s*\\{\\s*$", line)
    for (ch in strsplit(line, "")[[1]]) {
      if (ch == "{") {
        depth <- depth + 1
        open[[length(open) + 1]] <- list(line = i, def = is_def && length(open) >= 0, d = depth)
        is_def <- FALSE
      } else if (ch == "}") {
        top <- open[[length(open)]]
        open[[length(open)]] <- NULL
        if (isTRUE(top$def)) res[[length(res) + 1]] <- data.frame(file = file, name = trimws(x[top$line]),
                                                                  lines = i - top$line + 1)
        depth <- depth - 1
      }
    }
  }
  do.call(rbind, res)
}

r_files <- setdiff(list.files("R", "\\.R$", full.names = TRUE), "R/RcppExports.R")
cpp_files <- list.files("inst/include", "\\.hpp$", recursive = TRUE, full.names = TRUE)
r <- do.call(rbind, lapply(r_files, r_lengths))
cpp <- do.call(rbind, lapply(cpp_files, cpp_lengths))
long_r <- r[r$lines > 60, ]
long_cpp <- cpp[cpp$lines > 80, ]
if (nzchar(Sys.getenv("VHMC_LENGTHS_TOP"))) print(head(cpp[order(-cpp$lines), ], 12), row.names = FALSE)
if (nrow(long_r)) { cat("R functions over 60 lines:\n"); print(long_r[order(-long_r$lines), ], row.names = FALSE) }
if (nrow(long_cpp)) { cat("C++ functions over 80 lines:\n"); print(long_cpp[order(-long_cpp$lines), ], row.names = FALSE) }
if (!nrow(long_r) && !nrow(long_cpp)) cat("function-lengths: every R function <= 60 lines, every C++ function <= 80 lines\n")
quit(status = if (nrow(long_r) || nrow(long_cpp)) 1 else 0)
