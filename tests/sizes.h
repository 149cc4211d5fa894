// How large a property test's family is. The sanitizer build (GPUVP_SANITIZE) runs about ten
// times slower; there a family is cut to what still reaches every code path the full family
// reaches, and the normal build runs it whole.
#pragma once

namespace gpuvp::test {

#ifdef GPUVP_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// `normal` in the normal build, `sanitized` in the sanitizer build.
template <class T>
constexpr T family_size(T normal, T sanitized) {
    return kSanitized ? sanitized : normal;
}

}  // namespace gpuvp::test
