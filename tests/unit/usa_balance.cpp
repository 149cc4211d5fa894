// M4's decision logic (seed 003) without a simulation: the load flags, the plan table, the
// adaptive policy's choices and the breadth-first order of the clusters.
#include <gpuvp/models/usa/adaptive_balance.h>
#include <gpuvp/models/usa/load_flags.h>
#include <gpuvp/models/usa/shading_policy.h>
#include <gpuvp/models/usa/static_split.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace gpuvp;

namespace {

std::vector<CoreView> cores_of(const std::string& types, const std::string& busy = "") {
    std::vector<CoreView> v;
    for (size_t i = 0; i < types.size(); ++i)
        v.push_back(CoreView{busy.size() <= i || busy[i] != 'b', types[i] == 'V' ? CoreType::vertex : CoreType::pixel});
    return v;
}

}  // namespace

TEST_CASE("M4 a load flag codes none one and two or more idle cores and never 11", "[m4]") {
    CHECK(load_flag(0) == 0);
    CHECK(load_flag(1) == 1);
    for (uint32_t n = 2; n <= 80; ++n) CHECK(load_flag(n) == 2);
    CHECK(std::string(flag_bits(0)) == "00");
    CHECK(std::string(flag_bits(1)) == "01");
    CHECK(std::string(flag_bits(2)) == "10");
    // Flags from cores: only idle cores count, each by its type.
    CHECK(load_flags(cores_of("VVPP", "bb..")) == LoadFlags{0, 2});
    CHECK(load_flags(cores_of("VVPP", ".bb.")) == LoadFlags{1, 1});
    CHECK(load_flags(cores_of("VVVP", "...b")) == LoadFlags{2, 0});
}

TEST_CASE("M4 every row of the plan table", "[m4]") {
    struct Row {
        uint8_t v, p;
        Plan plan;
        bool moves;
        CoreType from, to;
    };
    const Row rows[] = {
        {0, 2, Plan::pixel_to_vertex, true, CoreType::pixel, CoreType::vertex},
        {1, 0, Plan::last_vertex_to_pixel, true, CoreType::vertex, CoreType::pixel},
        {2, 0, Plan::vertex_to_pixel, true, CoreType::vertex, CoreType::pixel},
        {0, 0, Plan::no_idle_core, false, {}, {}},
        {0, 1, Plan::keep_last_pixel, false, {}, {}},
        {1, 1, Plan::balanced, false, {}, {}},
        {1, 2, Plan::balanced, false, {}, {}},
        {2, 1, Plan::balanced, false, {}, {}},
        {2, 2, Plan::balanced, false, {}, {}},
    };
    for (const Row& r : rows) {
        INFO("V=" << flag_bits(r.v) << " P=" << flag_bits(r.p));
        CHECK(choose_plan(LoadFlags{r.v, r.p}) == r.plan);
        CoreType from = CoreType::vertex, to = CoreType::vertex;
        CHECK(plan_moves(r.plan, from, to) == r.moves);
        if (r.moves) {
            CHECK(from == r.from);
            CHECK(to == r.to);
        }
    }
}

TEST_CASE("M4 the adaptive policy carries out each row on real cores", "[m4]") {
    const AdaptiveBalance bf(8, AdaptiveBalance::Map::breadth_first);
    // 00/10: busy vertex cores, idle pixel cores: the first idle pixel core goes to vertex.
    auto r = bf.rebalance(cores_of("VVVVPPPP", "bbbb...."));
    REQUIRE(r);
    CHECK(r->core == 4);
    CHECK(r->to == CoreType::vertex);
    CHECK(r->plan == Plan::pixel_to_vertex);
    CHECK(r->flags == LoadFlags{0, 2});
    // 01/00: the one idle vertex core goes to pixel work.
    r = bf.rebalance(cores_of("VVVVPPPP", "bbb.bbbb"));
    REQUIRE(r);
    CHECK(r->core == 3);
    CHECK(r->to == CoreType::pixel);
    CHECK(r->plan == Plan::last_vertex_to_pixel);
    // 10/00: the first of several idle vertex cores goes to pixel work.
    r = bf.rebalance(cores_of("VVVVPPPP", "b...bbbb"));
    REQUIRE(r);
    CHECK(r->core == 1);
    CHECK(r->plan == Plan::vertex_to_pixel);
    // 00/00, 00/01 and balanced arrays: nothing.
    CHECK_FALSE(bf.rebalance(cores_of("VVVVPPPP", "bbbbbbbb")));
    CHECK_FALSE(bf.rebalance(cores_of("VVVVPPPP", "bbbbbbb.")));
    CHECK_FALSE(bf.rebalance(cores_of("VVVVPPPP", "...b....")));
    // The static split never moves a core, whatever the flags.
    const StaticSplit st;
    CHECK_FALSE(st.rebalance(cores_of("VVVVPPPP", "bbbb....")));
    CHECK_FALSE(st.rebalance(cores_of("VVVVPPPP", "b...bbbb")));
    for (const std::string& n : policy_names<ShadingBalance>())
        CHECK(make_shading_policy(*policy_from_name<ShadingBalance>(n), 8)->name() == n);
}

TEST_CASE("M4 the breadth-first order for 1 3 and 10 clusters and a partial last cluster", "[m4]") {
    CHECK(breadth_first_order(8) == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});  // m = 1
    // m = 3: SSC1 core1, SSC2 core1, SSC3 core1, SSC1 core2, ...
    CHECK(breadth_first_order(24) == std::vector<uint32_t>{0, 8,  16, 1, 9,  17, 2, 10, 18, 3, 11, 19,
                                                            4, 12, 20, 5, 13, 21, 6, 14, 22, 7, 15, 23});
    // m = 10: core k of SSC c is core 8c + k.
    const auto ten = breadth_first_order(80);
    REQUIRE(ten.size() == 80);
    for (uint32_t k = 0; k < 8; ++k)
        for (uint32_t c = 0; c < 10; ++c) CHECK(ten[k * 10 + c] == c * 8 + k);
    // 20 cores: SSC3 holds cores 17..20 only; the order skips the cores it lacks.
    CHECK(breadth_first_order(20) == std::vector<uint32_t>{0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19, 4, 12, 5, 13, 6, 14, 7, 15});
    CHECK(breadth_first_order(2) == std::vector<uint32_t>{0, 1});
    CHECK(clusters_for(20) == 3);
    CHECK(depth_first_order(20).front() == 0);
    CHECK(depth_first_order(20).back() == 19);
    // The maps pick different donors from the same array.
    const AdaptiveBalance bf(24, AdaptiveBalance::Map::breadth_first), df(24, AdaptiveBalance::Map::depth_first);
    std::string types(24, 'P'), busy(24, '.');
    for (uint32_t i : {0u, 8u, 16u}) types[i] = 'V', busy[i] = 'b';  // vertex cores busy, pixel cores idle
    CHECK(bf.rebalance(cores_of(types, busy))->core == 1);  // SSC1 core2 (core1 of each SSC is vertex)
    CHECK(df.rebalance(cores_of(types, busy))->core == 1);
    busy[1] = 'b';
    types[1] = 'V';
    CHECK(bf.rebalance(cores_of(types, busy))->core == 9);  // SSC2 core2
    CHECK(df.rebalance(cores_of(types, busy))->core == 2);  // SSC1 core3
}
