#pragma once
// The family registry of the GLM potential: every family struct (one per family and link,
// glm/family/*.hpp) in one list. A family is known by its position in the list (GlmFamily);
// with_family() calls a function with the family's struct, and family_named() finds a
// family by its code "family_link" (R's family$family and family$link), built from the names
// the structs carry. No file outside glm/family/ and this one names a family: code that
// needs a family's trait asks for it (kGaussianStats, kThresholds, kAux, ...).
#include <stdexcept>
#include <string>
#include <tuple>

#include "family/beta.hpp"
#include "family/binomial.hpp"
#include "family/cumulative.hpp"
#include "family/gamma.hpp"
#include "family/gaussian.hpp"
#include "family/inverse_gaussian.hpp"
#include "family/neg_binomial.hpp"
#include "family/poisson.hpp"
#include "family/student.hpp"
#include "family/zero_inflated.hpp"

namespace vhmc {

namespace family {
template <class D, class... Links>
using MeanFamilies = std::tuple<MeanFamily<D, Links>...>;

template <class... T>
using Cat = decltype(std::tuple_cat(std::declval<T>()...));
}  // namespace family

// Every family of the core (the order is that of the registry table R reads).
using AllFamilies = family::Cat<
    std::tuple<family::GaussianIdentity>, family::MeanFamilies<family::GaussianDist, family::LogLink, family::InverseLink>,
    std::tuple<family::BinomialLogit, family::BinomialProbit, family::Binomial<family::CauchitLink>,
               family::Binomial<family::LogProbLink>, family::Binomial<family::CloglogLink>>,
    std::tuple<family::PoissonLog>, family::MeanFamilies<family::PoissonDist, family::IdentityLink, family::SqrtLink>,
    std::tuple<family::NegBinomial2Log>,
    family::MeanFamilies<family::NegBinomial2Dist, family::IdentityLink, family::SqrtLink>,
    std::tuple<family::GammaLog>, family::MeanFamilies<family::GammaDist, family::InverseLink, family::IdentityLink>,
    family::MeanFamilies<family::InverseGaussianDist, family::InverseSquareLink, family::InverseLink,
                         family::IdentityLink, family::LogLink>,
    family::MeanFamilies<family::StudentDist, family::IdentityLink, family::LogLink, family::InverseLink>,
    family::MeanFamilies<family::BetaDist, family::LogitLink, family::ProbitLink, family::CloglogLink,
                         family::CauchitLink>,
    std::tuple<family::Cumulative<family::LogitLink>, family::Cumulative<family::ProbitLink>,
               family::Cumulative<family::CloglogLink>, family::Cumulative<family::CauchitLink>>,
    std::tuple<family::ZeroInflated<family::PoissonCount>, family::ZeroInflated<family::NegBinCount>,
               family::Hurdle<family::PoissonCount>, family::Hurdle<family::NegBinCount>>>;

constexpr int kFamilyCount = static_cast<int>(std::tuple_size<AllFamilies>::value);

// A family of the registry, by its position in AllFamilies.
struct GlmFamily {
  int index = 0;
};
inline bool operator==(GlmFamily a, GlmFamily b) { return a.index == b.index; }
inline bool operator!=(GlmFamily a, GlmFamily b) { return a.index != b.index; }

namespace family {
template <std::size_t I, class Fn>
decltype(auto) with_family_at(int index, Fn&& f) {
  using F = std::tuple_element_t<I, AllFamilies>;
  if constexpr (I + 1 == std::tuple_size<AllFamilies>::value) {
    return f(F{});
  } else {
    if (index == static_cast<int>(I)) return f(F{});
    return with_family_at<I + 1>(index, std::forward<Fn>(f));
  }
}
}  // namespace family

// Calls f(F{}) with the family struct of `id`: the one dispatch over families of the core.
template <class Fn>
decltype(auto) with_family(GlmFamily id, Fn&& f) {
  return family::with_family_at<0>(id.index, std::forward<Fn>(f));
}

template <class F>
std::string family_code() {
  return std::string(F::kFamily) + "_" + F::kLink;
}

// The family whose code is `code`; throws std::invalid_argument for an unknown one.
inline GlmFamily family_named(const std::string& code) {
  for (int i = 0; i < kFamilyCount; ++i)
    if (with_family(GlmFamily{i}, [](auto f) { return family_code<decltype(f)>(); }) == code) return GlmFamily{i};
  throw std::invalid_argument("unknown family '" + code + "'");
}

}  // namespace vhmc
