// The scenario loader's YAML (sc_main/scenario/yaml.h): what a file's text becomes (kinds,
// lines, quoted strings, nulls), aliases and their limits, and the text written back.
#include "sc_main/scenario/yaml.h"

#include <catch2/catch.hpp>

using namespace gpuvp;
using yaml::Node;
using Catch::Matchers::Contains;

namespace {

yaml::Error error_of(const std::string& text, yaml::Limits limits = {}) {
    try {
        yaml::parse(text, limits);
    } catch (const yaml::Error& e) {
        return e;
    }
    FAIL("no error for: " << text);
    return yaml::Error(-1, "");
}

}  // namespace

TEST_CASE("yaml: a document's maps, lists and scalars, with their lines and styles", "[yaml]") {
    const Node doc = yaml::parse("name: x\n# a comment\nplatform:\n  sms: 4\nkernels:\n  - {name: k, grid: [64, 2]}\n  - name: j\n");
    REQUIRE(doc.is_map());
    CHECK(doc.line() == 1);
    CHECK(doc.size() == 3);
    CHECK(doc.key(1).value() == "platform");
    CHECK(doc.key(1).line() == 3);
    CHECK(doc["platform"]["sms"].value() == "4");
    CHECK(doc["platform"]["sms"].line() == 4);
    CHECK_FALSE(doc["platform"].flow());
    const Node& kernels = doc["kernels"];
    REQUIRE(kernels.is_sequence());
    CHECK(kernels.size() == 2);
    CHECK(kernels[0].flow());
    CHECK(kernels[0].line() == 6);
    CHECK(kernels[0]["grid"].flow());
    CHECK(kernels[0]["grid"][1].value() == "2");
    CHECK(kernels[1]["name"].value() == "j");
    CHECK(kernels[1].line() == 7);
    // A key not there: an undefined node, whatever is asked of it.
    CHECK_FALSE(doc["queues"]);
    CHECK_FALSE(doc["queues"]["name"]);
    CHECK(doc["queues"].size() == 0);
    CHECK_FALSE(doc["name"]["x"]);  // (a scalar has no keys)
}

TEST_CASE("yaml: quoted and !!str scalars are text, plain ~, null and nothing are null", "[yaml]") {
    const Node doc = yaml::parse("a: 4\nb: \"4\"\nc: '4'\nd: !!str 4\ne: ~\nf: null\ng:\nh: NULL\ni: 'null'\nj: nul\n");
    CHECK(doc["a"].is_scalar());
    CHECK_FALSE(doc["a"].is_text());
    for (const char* k : {"b", "c", "d", "i"}) {
        CHECK(doc[k].is_scalar());
        CHECK(doc[k].is_text());
    }
    CHECK(doc["d"].value() == "4");
    for (const char* k : {"e", "f", "g", "h"}) CHECK(doc[k].is_null());
    CHECK(doc["i"].value() == "null");
    CHECK(doc["j"].is_scalar());
    // Keys are kept as written, duplicates included (the reader names the second).
    const Node dup = yaml::parse("a: 1\na: 2\n");
    CHECK(dup.size() == 2);
    CHECK(dup["a"].value() == "1");
    CHECK(dup.key(1).line() == 2);
    // Nothing, and a comment only: a null document. Only the first of several documents is read.
    CHECK(yaml::parse("").is_null());
    CHECK(yaml::parse("# nothing\n").is_null());
    CHECK(yaml::parse("a: 1\n---\nb: 2\n")["a"].value() == "1");
    CHECK_FALSE(yaml::parse("a: 1\n---\nb: 2\n")["b"]);
}

TEST_CASE("yaml: YAML 1.1's booleans, in one case form only", "[yaml]") {
    bool b = false;
    for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "ON", "y", "Y"}) {
        b = false;
        CHECK(yaml::read_bool(t, b));
        CHECK(b);
    }
    for (const char* f : {"false", "False", "FALSE", "no", "NO", "off", "Off", "n", "N"}) {
        b = true;
        CHECK(yaml::read_bool(f, b));
        CHECK_FALSE(b);
    }
    for (const char* x : {"tRUE", "yES", "1", "0", "", "truth", "nope"}) CHECK_FALSE(yaml::read_bool(x, b));
}

TEST_CASE("yaml: a syntax error names its line", "[yaml][errors]") {
    const yaml::Error e = error_of("name: x\nkernels:\n  - name: k\n    grid: [1, 2\n    program: []\n");
    CHECK(e.syntax());
    CHECK(e.line() == 5);
    CHECK_THAT(e.what(), Contains("end of sequence flow not found (the list that begins at line 4)"));
    const yaml::Error tab = error_of("a: 1\n\tb: 2\n");
    CHECK(tab.syntax());
    CHECK(tab.line() == 2);
    const yaml::Error alias = error_of("a: 1\nb: *nowhere\n");
    CHECK(alias.syntax());
    CHECK(alias.line() == 2);
    CHECK_THAT(alias.what(), Contains("unknown anchor 'nowhere'"));
    // A quoted scalar the end of the text cuts short (yaml-cpp 0.7 would take it as closed there).
    for (const char* cut : {"name: \"x\nkernels: []\n", "a: 'it''s\n", "\xEF\xBB\xBF" "a: \"x\n", "a: &x \"abc\n",
                            "a: !!str \"abc\n", "a: &x !!str 'abc\n"}) {
        const yaml::Error q = error_of(cut);
        CHECK(q.syntax());
        CHECK_THAT(q.what(), Contains("found the end of the text in a quoted scalar that begins at line 1"));
    }
    CHECK(yaml::parse("a: 'it''s'\nb: \"q\\\"\"\n")["b"].value() == "q\"");
    CHECK(yaml::parse("\xEF\xBB\xBF" "a: \"x\"\n")["a"].is_text());
    CHECK(yaml::parse("a: &x \"abc\"\nb: *x\n")["b"].value() == "abc");
    CHECK_THAT(error_of("\xEF\xBB\xBF" "a: 1\nb: *nowhere\n").what(), Contains("unknown anchor 'nowhere'"));
}

TEST_CASE("yaml: an alias copies its anchor's value, within the limits", "[yaml][errors]") {
    const Node doc = yaml::parse("a: &x {b: [1, 2]}\nc: *x\n");
    CHECK(doc["c"]["b"][1].value() == "2");
    CHECK(doc["c"]["b"].line() == 1);  // the anchor's lines
    // Each alias counts what it copies: 4 nodes a copy here (map, key, list, item).
    yaml::Limits limits;
    limits.nodes = 11;
    CHECK_NOTHROW(yaml::parse("a: &x {b: [1]}\nc: *x\n", limits));  // the root, 5 nodes under a, c and 4 copied
    CHECK(limits.used == 11);
    limits.used = 0;
    const yaml::Error big = error_of("a: &x {b: [1]}\nc: *x\nd: *x\n", limits);
    CHECK_FALSE(big.syntax());
    CHECK(big.line() == 0);
    CHECK_THAT(big.what(), Contains("aliases make the document more than 11 nodes long"));
    // One Limits bounds every parse given it.
    yaml::Limits shared;
    shared.nodes = 5;
    yaml::parse("[1, 2, 3]", shared);
    CHECK(shared.used == 4);
    CHECK_THROWS_AS(yaml::parse("[1, 2]", shared), yaml::Error);
    // An alias inside its own anchor's value, and nesting past the depth limit.
    const yaml::Error cycle = error_of("a: &w {b: [*w]}\n");
    CHECK_THAT(cycle.what(), Contains("aliases nest the document more than 1000 levels deep"));
    yaml::Limits shallow;
    shallow.depth = 3;
    CHECK_NOTHROW(yaml::parse("a: {b: 1}", shallow));
    const yaml::Error deep = error_of("a: {b: [1]}", shallow);
    CHECK(deep.syntax());
    CHECK_THAT(deep.what(), Contains("nests more than 3 levels deep"));
    const yaml::Error deep_alias = error_of("x: &x [1]\na: {b: *x}", shallow);
    CHECK_THAT(deep_alias.what(), Contains("aliases nest the document more than 3 levels deep"));
}

TEST_CASE("yaml: a document written reads back the same, in a scenario file's style", "[yaml]") {
    Node doc = Node::map();
    doc.set("name", Node::scalar("x"));
    doc.child("platform").set("sms", Node::scalar(uint64_t(4)));
    doc.child("platform").child("sm").set("warp_slots", Node::scalar(32));
    doc.set("max_sim_ns", Node::scalar(1e9));
    Node k = Node::map(true);
    k.set("name", Node::scalar("elementwise_kernel#0"));
    Node grid = Node::sequence(true);
    grid.push_back(Node::scalar(uint64_t(64)));
    grid.push_back(Node::scalar(uint64_t(1)));
    k.set("grid", grid);
    k.set("barrier", Node::scalar(true));
    Node kernels = Node::sequence();
    kernels.push_back(k);
    doc.set("kernels", kernels);
    const std::string text = yaml::write(doc, "made by a test");
    CHECK(text ==
          "# made by a test\n"
          "name: x\n"
          "platform:\n"
          "  sms: 4\n"
          "  sm:\n"
          "    warp_slots: 32\n"
          "max_sim_ns: 1000000000\n"
          "kernels:\n"
          "  - {name: elementwise_kernel#0, grid: [64, 1], barrier: true}\n");
    CHECK(yaml::write(yaml::parse(text)) == text.substr(text.find('\n') + 1));
    // A double keeps every digit it needs to read back exactly.
    CHECK(Node::scalar(0.1).value() == "0.10000000000000001");
    CHECK(Node::scalar(2.5).value() == "2.5");
}

TEST_CASE("yaml: a string that would read back as something else is written quoted", "[yaml]") {
    for (const std::string s : {"null", "~", "", " lead", "trail ", "a: b", "a #b", "#x", "[x]", "{x}", "-", "- x", "x,y",
                                "q?", "*x", "&x", "!x", "'x'", "\"x\"", "%x", "@x", "`x`", "|x", ">x", "a\nb", "tab\there",
                                "back\\slash", "x:"}) {
        Node doc = Node::map();
        doc.set("v", Node::scalar(s));
        Node list = Node::sequence(true);
        list.push_back(Node::scalar(s));
        doc.set("in_flow", list);
        const Node back = yaml::parse(yaml::write(doc));
        INFO("'" << s << "' written as: " << yaml::write(doc));
        REQUIRE(back["v"].is_scalar());
        CHECK(back["v"].value() == s);
        CHECK(back["in_flow"][0].value() == s);
    }
    // What needs no quotes has none.
    Node plain = Node::sequence(true);
    for (const char* s : {"priority-block", "a#0", "x:y", "-5", "1.5e3", "a b", "stream7"}) plain.push_back(Node::scalar(s));
    CHECK(yaml::write_flow(plain) == "[priority-block, a#0, x:y, -5, 1.5e3, a b, stream7]");
    CHECK(yaml::write_flow(yaml::parse("{a: 1, b: [x, 'y']}")) == "{a: 1, b: [x, y]}");
}
