// The scenario loader's YAML: a document as a tree of values, read with yaml-cpp's event parser
// (YAML::Parser with an EventHandler: gpuvp keeps its own document, lines and limits) and written in
// the style of a scenario file. Nodes are values (a copy is a deep copy, with its lines); a
// map keeps its keys in the order written, duplicates included, so that the reader can name
// them. Only this folder (sc_main/scenario/) reads or writes YAML.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp::yaml {

class Node {
public:
    enum class Kind : uint8_t { undefined, null, scalar, sequence, map };

    Node() = default;
    static Node null(int line = 0) { return Node(Kind::null, line); }
    // A scalar; `text`: quoted or tagged !!str in the file (a string even where it reads as 4).
    static Node scalar(std::string value, int line = 0, bool text = false) {
        Node n(Kind::scalar, line);
        n.value_ = std::move(value);
        n.text_ = text;
        return n;
    }
    static Node scalar(uint64_t v) { return scalar(std::to_string(v)); }
    static Node scalar(int64_t v) { return scalar(std::to_string(v)); }
    static Node scalar(uint32_t v) { return scalar(std::to_string(v)); }
    static Node scalar(int v) { return scalar(std::to_string(v)); }
    static Node scalar(double v);  // the shortest digits that read back exactly, as 1000000000 or 2.5
    static Node scalar(bool v) { return scalar(std::string(v ? "true" : "false")); }
    static Node scalar(const char* v) { return scalar(std::string(v)); }
    // An empty list or map; `flow`: written on one line ([1, 2], {a: 1}).
    static Node sequence(bool flow = false, int line = 0) { return Node(Kind::sequence, line, flow); }
    static Node map(bool flow = false, int line = 0) { return Node(Kind::map, line, flow); }

    Kind kind() const { return kind_; }
    explicit operator bool() const { return kind_ != Kind::undefined; }  // false: a key not there
    bool is_null() const { return kind_ == Kind::null; }
    bool is_scalar() const { return kind_ == Kind::scalar; }
    bool is_sequence() const { return kind_ == Kind::sequence; }
    bool is_map() const { return kind_ == Kind::map; }
    bool is_text() const { return text_; }
    bool flow() const { return flow_; }
    int line() const { return line_; }  // 1-based; 0: made, not read
    const std::string& value() const { return value_; }  // a scalar's text

    // A list's items, a map's pairs.
    size_t size() const { return kind_ == Kind::map ? items_.size() / 2 : kind_ == Kind::sequence ? items_.size() : 0; }
    const Node& operator[](size_t i) const { return items_[i]; }  // a list's item i
    Node& operator[](size_t i) { return items_[i]; }
    const Node& key(size_t i) const { return items_[2 * i]; }  // a map's pair i
    const Node& value(size_t i) const { return items_[2 * i + 1]; }
    Node& value(size_t i) { return items_[2 * i + 1]; }

    // A map's value for the first scalar key `k`: an undefined node when there is none (or
    // this is no map).
    const Node& operator[](std::string_view k) const;
    Node* find(std::string_view k);
    const Node* find_key(std::string_view k) const;  // the key node itself
    // A map's value for `k`, replaced or added last; returns it.
    Node& set(std::string_view k, Node v);
    // The map under `k`, added (empty, block style) if `k` has no map.
    Node& child(std::string_view k);
    void add(Node k, Node v) { items_.push_back(std::move(k)), items_.push_back(std::move(v)); }  // a pair, even a duplicate
    bool remove(std::string_view k);  // the first pair with key `k`
    void push_back(Node v) { items_.push_back(std::move(v)); }  // a list's new last item

    // A map's pairs, for `for (const auto& kv : map)`: kv.first, kv.second.
    struct Pair {
        const Node& first;
        const Node& second;
    };
    class PairIterator {
    public:
        explicit PairIterator(const Node* at) : at_(at) {}
        Pair operator*() const { return {at_[0], at_[1]}; }
        PairIterator& operator++() {
            at_ += 2;
            return *this;
        }
        bool operator!=(const PairIterator& o) const { return at_ != o.at_; }

    private:
        const Node* at_;
    };
    PairIterator begin() const { return PairIterator(kind_ == Kind::map ? items_.data() : nullptr); }
    PairIterator end() const { return PairIterator(kind_ == Kind::map ? items_.data() + items_.size() : nullptr); }

    // For the reader of a file: its kind, line and style.
    friend class Builder;

private:
    Node(Kind k, int line, bool flow = false) : kind_(k), flow_(flow), line_(line) {}

    Kind kind_ = Kind::undefined;
    bool text_ = false;
    bool flow_ = false;
    int line_ = 0;
    std::string value_;
    std::vector<Node> items_;  // a list's items; a map's keys and values, alternating
};

// What parse() refuses: a syntax error at `line` (1-based), or a document too big or too deep
// (aliases expanded: line 0).
class Error : public std::runtime_error {
public:
    Error(int line, const std::string& what, bool syntax = false) : std::runtime_error(what), line_(line), syntax_(syntax) {}
    int line() const { return line_; }
    bool syntax() const { return syntax_; }  // YAML's own rules, not the limits

private:
    int line_;
    bool syntax_;
};

// Limits of what parse() reads: aliases (*name) copy what their anchor names, so a small text
// can stand for an enormous or endless document. One Limits may bound several parses.
struct Limits {
    uint64_t nodes = 1'000'000;  // nodes at most, aliases expanded, in all the parses together
    unsigned depth = 1000;       // levels of nesting at most (yaml-cpp 0.7 reads fewer than 500; aliases may go on)
    uint64_t used = 0;           // nodes read so far
};

// The first document of `text` (a null node for none). Throws Error.
Node parse(std::string_view text, Limits& limits);
inline Node parse(std::string_view text) {
    Limits limits;
    return parse(text, limits);
}

// YAML 1.1's booleans as scenario files write them (true, True, TRUE, yes, on, y, and their
// opposites): false if `s` is none of them.
bool read_bool(const std::string& s, bool& out);

// The document as a file: maps and lists in block style but for those marked flow, scalars
// plain where that reads back the same, else double-quoted. `comment`: a first line, "# ...".
std::string write(const Node& doc, const std::string& comment = "");
// One value on one line, as a --set value is written ([1, 2], {a: 1}, priority-block).
std::string write_flow(const Node& value);

}  // namespace gpuvp::yaml
