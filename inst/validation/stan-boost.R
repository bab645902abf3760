# Debian's r-cran-bh is an empty stand-in for BH (Boost is libboost-dev's, in /usr/include),
# where rstan looks for Boost by default: point it at the system's headers. Sourced by the
# validation scripts that compile Stan models (brms-families.R, horseshoe-reference.R).
if (!file.exists(rstan::rstan_options("boost_lib")) && dir.exists("/usr/include/boost")) {
  rstan::rstan_options(boost_lib = "/usr/include")
}
