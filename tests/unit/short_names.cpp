// Names for the console table's kernel columns and the page's kernel labels
// (sc_main/record/short_names.h): in at most 14 characters, no two alike.
#include "sc_main/record/short_names.h"

#include <catch2/catch.hpp>

#include <set>

TEST_CASE("short names: a name that fits as it is, a longer one cut with ~, two alike told apart by their ends", "[console]") {
    const std::vector<std::string> names = {"empty", "fft2d_r2c_32x32#3", "fft2d_r2c_32x32#7", "a_long_kernel_name", "exactly_14_byt"};
    const std::vector<std::string> s = gpuvp::short_names(names, 14);
    REQUIRE(s.size() == names.size());
    CHECK(s[0] == "empty");
    CHECK(s[1] == "fft2d_r2c_32~3");  // cut alike ("fft2d_r2c_32x~"): each keeps its end
    CHECK(s[2] == "fft2d_r2c_32~7");
    CHECK(s[3] == "a_long_kernel~");  // alone: cut with ~
    CHECK(s[3].size() == 14);
    CHECK(s[4] == "exactly_14_byt");
    // Names that differ only inside: numbered.
    const std::vector<std::string> inside = gpuvp::short_names({"kernel_AAAAAAAAAA_x", "kernel_BBBBBBBBBB_x"}, 14);
    CHECK(inside[0] != inside[1]);
    for (const std::string& n : inside) CHECK(n.size() <= 14);
    // Many of one stem: every label distinct and within the width.
    std::vector<std::string> many;
    for (int i = 0; i < 120; ++i) many.push_back("void_at_native_elementwise_kernel#" + std::to_string(i));
    const std::vector<std::string> m = gpuvp::short_names(many, 14);
    CHECK(std::set<std::string>(m.begin(), m.end()).size() == many.size());
    for (const std::string& n : m) CHECK(n.size() <= 14);
    // Characters, not bytes: a name of two-byte characters cut after 13 of them, none split.
    const std::string e = "\u00e9";  // é
    std::string accented;
    for (int i = 0; i < 20; ++i) accented += e;
    const std::vector<std::string> a = gpuvp::short_names({accented, "x"}, 14);
    std::string want;
    for (int i = 0; i < 13; ++i) want += e;
    CHECK(a[0] == want + "~");
    CHECK(gpuvp::text_chars(a[0]) == 14);
    // Alike after their ends too, and numbered: each number the first no other label has.
    const std::string p = "void_gemm_k<", t1 = ">(float*,A)", t2 = ">(float*,B)";
    const std::vector<std::string> templ = {p + "f32,1" + t1, p + "f32,2" + t1, p + "f32,1" + t2, p + "f32,2" + t2};
    const std::vector<std::string> tn = gpuvp::short_names(templ, 14);
    CHECK(std::set<std::string>(tn.begin(), tn.end()).size() == 4);
    for (const std::string& n : tn) CHECK(n.size() <= 14);
    const std::vector<std::string> taken = gpuvp::short_names({"gemm", "gemm", "gemm~1"}, 14);
    CHECK(taken[2] == "gemm~1");  // fits as it is
    CHECK(taken[0] == "gemm~2");  // (~1 is taken)
    CHECK(taken[1] == "gemm~3");
}
