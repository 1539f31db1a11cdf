# bnclassify's own figures for the fidelity entries of benchmarks/accuracy_search.py,
# and its fit times on nursery, to be run on the same machine as pybnc.
#
# Install (Debian 12, as root; CRAN itself need not be reachable):
#   apt-get install --no-install-recommends r-base-core r-base-dev r-cran-rcpp r-cran-bh \
#       r-cran-matrixstats r-cran-assertthat r-cran-rpart r-cran-foreign
#   # bnclassify 0.4.8 and its one pure-R dependency not packaged by Debian, entropy,
#   # from their GitHub sources (github.com/bmihaljevic/bnclassify, github.com/cran/entropy):
#   mkdir -p /work/rlib
#   R CMD INSTALL -l /work/rlib entropy
#   R CMD INSTALL -l /work/rlib bnclassify
#
# Run (R_LIBS points at that library; ARFF files as for accuracy_search.py):
#   R_LIBS=/work/rlib Rscript benchmarks/bnclassify_reference.R accuracy \
#       --arff-dir=/work/search-data --entries=tanhc --seeds=20
#     R's own protocol: set.seed(s); cv(model, data, k = 10, dag = TRUE) (structure
#     re-learned in every fold), seeds 0..seeds-1; dag = FALSE (the structure learned
#     once on all rows, only parameters re-learned; optimistic) is printed alongside.
#   Memory: bnclassify's fssj on splice grew past 16 GB within its first cv() here
#   (killed by the kernel, even with cache_reset = 5); run --entries=fssj only on a
#   machine with far more memory than that.
#   Entries: tanhc (tic-tac-toe), bsej (nursery), fssj (splice), awnb (mushroom, "?" as
#   a level: bnclassify needs gRain for rows with NA).
#   R_LIBS=/work/rlib Rscript benchmarks/bnclassify_reference.R folds \
#       --arff-dir=/work/search-data --folds=FILE
#     The outer folds pybnc used (accuracy_search.py --folds-out=FILE): the same test
#     rows for both libraries; only the inner folds (R's and numpy's random numbers) differ.
#   R_LIBS=/work/rlib Rscript benchmarks/bnclassify_reference.R timing \
#       --arff-dir=/work/search-data --repeats=5
#     Seconds per fit of tan_hc and bsej (k = 5) on nursery, median of the repeats.
#
# Every mode prints CSV rows to standard output:
#   mode,learner,dataset,epsilon,seed,accuracy,accuracy_dag_false,seconds

suppressPackageStartupMessages(library(bnclassify))

args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args) > 0) args[[1]] else "accuracy"
option <- function(name, default) {
  hit <- grep(sprintf("^--%s=", name), args, value = TRUE)
  if (length(hit) == 0) default else sub(sprintf("^--%s=", name), "", hit[[1]])
}
arff_dir <- option("arff-dir", "/work/search-data")
n_seeds <- as.integer(option("seeds", "5"))
epsilon <- as.numeric(option("epsilon", "0"))
smooth <- as.numeric(option("smooth", "1"))
inner_k <- as.integer(option("k", "5"))

# The entries of accuracy_search.py's R column: learner name there, how to fit it, table.
wrapper <- function(learner) function(cls, d) {
  # two statements: lp() records its call and evaluates its arguments, so a nested
  # learner(...) would run the search twice (and draw different random numbers)
  structure <- learner(cls, d, k = inner_k, epsilon = epsilon, smooth = smooth)
  lp(structure, d, smooth = smooth)
}
ENTRIES <- list(
  tanhc = list(name = "TANHC", fit = wrapper(tan_hc), dataset = "tic-tac-toe"),
  bsej = list(name = "BSEJ", fit = wrapper(bsej), dataset = "nursery"),
  fssj = list(name = "FSSJ", fit = wrapper(fssj), dataset = "splice"),
  # bnclassify's naive Bayes predicts rows with NA only through gRain: mushroom's
  # "?" is made a level of its own (pybnc: missing="category")
  awnb = list(name = "AWNB", dataset = "mushroom", missing_as_level = TRUE,
              fit = function(cls, d) bnc("nb", cls, d, smooth = smooth, awnb_trees = 10,
                                         awnb_bootstrap = 0.5))
)
entries <- ENTRIES[strsplit(option("entries", "tanhc,bsej"), ",")[[1]]]

read_table <- function(entry) {
  d <- foreign::read.arff(file.path(arff_dir, paste0(entry$dataset, ".arff")))
  if (isTRUE(entry$missing_as_level)) {
    for (j in seq_along(d)) if (anyNA(d[[j]])) {
      levels(d[[j]]) <- c(levels(d[[j]]), "missing")
      d[[j]][is.na(d[[j]])] <- "missing"
    }
  }
  # splice's row identifier, dropped as accuracy_search.py drops it
  d[, tolower(names(d)) != "instance_name", drop = FALSE]
}

fit <- function(entry, d) entry$fit(names(d)[ncol(d)], d)

emit <- function(...) cat(paste(..., sep = ","), "\n", sep = "")
cat("mode,learner,dataset,epsilon,seed,accuracy,accuracy_dag_false,seconds\n")

if (mode == "accuracy") {
  for (entry in entries) {
    d <- read_table(entry)
    for (s in seq_len(n_seeds) - 1L) {
      set.seed(s)
      started <- proc.time()[["elapsed"]]
      model <- fit(entry, d)
      acc <- cv(model, d, k = 10, dag = TRUE)
      seconds <- proc.time()[["elapsed"]] - started
      set.seed(s)
      acc_fixed <- cv(model, d, k = 10, dag = FALSE)
      emit(mode, entry$name, entry$dataset, epsilon, s, acc, acc_fixed, round(seconds, 2))
    }
  }
} else if (mode == "folds") {
  # columns: dataset, seed, row (1-based), fold (1-based test fold of that row)
  folds <- read.csv(option("folds", "folds.csv"), stringsAsFactors = FALSE)
  for (entry in entries) {
    d <- read_table(entry)
    of_table <- folds[folds$dataset == entry$dataset, ]
    for (s in sort(unique(of_table$seed))) {
      assignment <- of_table[of_table$seed == s, ]
      fold <- integer(nrow(d))
      fold[assignment$row] <- assignment$fold
      stopifnot(all(fold > 0))
      set.seed(s)
      started <- proc.time()[["elapsed"]]
      per_fold <- vapply(sort(unique(fold)), function(f) {
        model <- fit(entry, d[fold != f, , drop = FALSE])
        test <- d[fold == f, , drop = FALSE]
        accuracy(predict(model, test), test[[ncol(test)]])
      }, numeric(1))
      seconds <- proc.time()[["elapsed"]] - started
      emit(mode, entry$name, entry$dataset, epsilon, s, mean(per_fold), "", round(seconds, 2))
    }
  }
} else if (mode == "timing") {
  repeats <- as.integer(option("repeats", "5"))
  d <- read_table(list(dataset = "nursery"))
  for (name in c("tan_hc", "bsej")) {
    learner <- get(name)
    seconds <- vapply(seq_len(repeats), function(r) {
      set.seed(r)
      started <- proc.time()[["elapsed"]]
      learner(names(d)[ncol(d)], d, k = inner_k, epsilon = epsilon, smooth = smooth)
      proc.time()[["elapsed"]] - started
    }, numeric(1))
    emit(mode, name, "nursery", epsilon, "", "", "", round(median(seconds), 3))
  }
} else {
  stop("mode must be accuracy, folds or timing, got ", mode)
}
