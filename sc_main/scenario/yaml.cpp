#include "sc_main/scenario/yaml.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <istream>
#include <streambuf>
#include <sstream>
#include <unordered_map>

namespace gpuvp::yaml {

namespace {

const Node kUndefined;

bool key_is(const Node& k, std::string_view name) { return k.is_scalar() && k.value() == name; }

// YAML's null as a plain scalar writes it.
bool null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

// Nodes in `n` and its depth (1 for a scalar).
void measure(const Node& n, uint64_t& nodes, unsigned& depth, unsigned at = 1) {
    ++nodes;
    depth = std::max(depth, at);
    const size_t items = n.is_map() ? 2 * n.size() : n.size();
    for (size_t i = 0; i < items; ++i) measure(n.is_map() ? (i % 2 ? n.value(i / 2) : n.key(i / 2)) : n[i], nodes, depth, at + 1);
}

}  // namespace

Node Node::scalar(double v) {
    std::ostringstream s;  // the digits that read back exactly
    s.precision(std::numeric_limits<double>::max_digits10);
    s << v;
    return scalar(s.str());
}

const Node& Node::operator[](std::string_view k) const {
    for (size_t i = 0; kind_ == Kind::map && i < items_.size(); i += 2)
        if (key_is(items_[i], k)) return items_[i + 1];
    return kUndefined;
}

Node* Node::find(std::string_view k) {
    for (size_t i = 0; kind_ == Kind::map && i < items_.size(); i += 2)
        if (key_is(items_[i], k)) return &items_[i + 1];
    return nullptr;
}

const Node* Node::find_key(std::string_view k) const {
    for (size_t i = 0; kind_ == Kind::map && i < items_.size(); i += 2)
        if (key_is(items_[i], k)) return &items_[i];
    return nullptr;
}

Node& Node::set(std::string_view k, Node v) {
    if (kind_ != Kind::map) *this = map();
    if (Node* there = find(k)) return *there = std::move(v);
    add(scalar(std::string(k)), std::move(v));
    return items_.back();
}

Node& Node::child(std::string_view k) {
    Node* there = find(k);
    return there && there->is_map() ? *there : set(k, map());
}

bool Node::remove(std::string_view k) {
    for (size_t i = 0; kind_ == Kind::map && i < items_.size(); i += 2)
        if (key_is(items_[i], k)) {
            items_.erase(items_.begin() + long(i), items_.begin() + long(i) + 2);
            return true;
        }
    return false;
}

// ---- Reading: yaml-cpp's events into nodes

// The text as an input stream, without a copy.
class TextBuffer : public std::streambuf {
public:
    explicit TextBuffer(std::string_view text) {
        char* at = const_cast<char*>(text.data());
        setg(at, at, at + text.size());
    }
};

class Builder : public YAML::EventHandler {
public:
    Builder(std::string_view text, Limits& limits)
        : text_(text), limits_(limits), bom_(text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0),
          utf8_(text.find('\0') == std::string_view::npos) {}

    Node run() {
        TextBuffer buffer(text_);
        std::istream in(&buffer);
        try {
            YAML::Parser parser(in);
            parser.HandleNextDocument(*this);  // the first document only
        } catch (const YAML::DeepRecursion& e) {
            throw Error(line_of(e.mark), "the document nests " + std::to_string(e.depth()) + " levels deep: more than yaml-cpp reads",
                        true);
        } catch (const YAML::ParserException& e) {
            throw Error(line_of(e.mark), message(e), true);
        }
        return done_ ? std::move(root_) : Node::null();
    }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& at, YAML::anchor_t anchor) override { scalar(Node::null(line_of(at)), anchor); }
    void OnScalar(const YAML::Mark& at, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
        // Tag "?": plain, untagged; "!": quoted (or tagged "!"); else an explicit tag.
        const bool text = tag == "!" || (tag.size() >= 4 && tag.compare(tag.size() - 4, 4, ":str") == 0);
        closed_quote(at);
        scalar(Node::scalar(value, line_of(at), text), anchor);
    }
    void OnSequenceStart(const YAML::Mark& at, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value style) override {
        open_.push_back({put(Node::sequence(style == YAML::EmitterStyle::Flow, line_of(at)), 1), anchor});
    }
    void OnMapStart(const YAML::Mark& at, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value style) override {
        open_.push_back({put(Node::map(style == YAML::EmitterStyle::Flow, line_of(at)), 1), anchor});
    }
    void OnSequenceEnd() override { close(); }
    void OnMapEnd() override { close(); }
    void OnAlias(const YAML::Mark& at, YAML::anchor_t anchor) override {
        for (const Open& o : open_)
            if (o.anchor == anchor)  // inside its own anchor's value: it would nest for ever
                throw Error(0, "aliases nest the document more than " + std::to_string(limits_.depth) +
                                   " levels deep (an alias inside its own anchor's value nests it for ever)");
        const Anchor& a = anchors_.at(anchor);  // (yaml-cpp refuses an alias to no anchor)
        if (open_.size() + a.depth > limits_.depth)
            throw Error(0, "aliases nest the document more than " + std::to_string(limits_.depth) + " levels deep");
        count(a.nodes - 1);
        put(Node(a.node), a.depth);
    }

private:
    struct Open {
        Node* node;
        YAML::anchor_t anchor;
    };
    struct Anchor {
        Node node;
        uint64_t nodes = 0;
        unsigned depth = 0;
    };

    static int line_of(const YAML::Mark& at) { return at.is_null() ? 0 : at.line + 1; }

    // yaml-cpp 0.7 takes a quoted scalar that a line break and the end of the text cut short as
    // if it were closed there: refused here, as the YAML spec has it.
    // (yaml-cpp's positions count UTF-8 bytes after a byte-order mark; a UTF-16 or UTF-32 text,
    // which it converts, is not looked at.)
    // The scalar's mark is at its properties (an &anchor, a !tag) where it has them.
    void closed_quote(const YAML::Mark& at) const {
        if (at.pos < 0 || !utf8_) return;
        size_t from = size_t(at.pos) + bom_;
        while (from < text_.size() && (text_[from] == '&' || text_[from] == '!')) {
            from = text_.find_first_of(" \t\r\n", from);
            from = from == std::string_view::npos ? text_.size() : text_.find_first_not_of(" \t\r\n", from);
            if (from == std::string_view::npos) return;
        }
        if (from >= text_.size()) return;
        const char quote = text_[from];
        if (quote != '"' && quote != '\'') return;  // a plain scalar
        for (size_t i = from + 1; i < text_.size(); ++i) {
            if (text_[i] == quote) {
                if (quote == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') ++i;  // '' in '...'
                else return;
            } else if (quote == '"' && text_[i] == '\\') {
                ++i;  // an escape
            }
        }
        throw Error(int(std::count(text_.begin(), text_.end(), '\n')) + 1,
                    "found the end of the text in a quoted scalar that begins at line " + std::to_string(line_of(at)), true);
    }

    // yaml-cpp's message, with what its message leaves out: the name of an unknown alias, the
    // line where an unclosed list or map begins.
    std::string message(const YAML::ParserException& e) const {
        const std::string& m = e.msg;
        if ((m == YAML::ErrorMsg::END_OF_SEQ_FLOW || m == YAML::ErrorMsg::END_OF_SEQ || m == YAML::ErrorMsg::END_OF_MAP_FLOW ||
             m == YAML::ErrorMsg::END_OF_MAP) &&
            !open_.empty())
            return m + " (the " + (open_.back().node->is_map() ? "map" : "list") + " that begins at line " +
                   std::to_string(open_.back().node->line()) + ")";
        if (e.msg == YAML::ErrorMsg::UNKNOWN_ANCHOR && e.mark.pos >= 0 && size_t(e.mark.pos) + bom_ < text_.size()) {
            std::string_view name = text_.substr(size_t(e.mark.pos) + bom_);
            if (!name.empty() && name[0] == '*') name.remove_prefix(1);
            name = name.substr(0, name.find_first_of(" \t\r\n,[]{}"));
            return "unknown anchor '" + std::string(name) + "' (an alias names an anchor written before it)";
        }
        return e.msg;
    }

    void scalar(Node n, YAML::anchor_t anchor) {
        if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchor{n, 1, 1};
        put(std::move(n), 1);
    }

    void close() {
        const Open o = open_.back();
        open_.pop_back();
        if (o.anchor != YAML::NullAnchor) {
            uint64_t nodes = 0;
            unsigned depth = 0;
            measure(*o.node, nodes, depth);
            anchors_[o.anchor] = Anchor{*o.node, nodes, depth};
        }
    }

    void count(uint64_t more) {
        limits_.used += more;
        if (limits_.used > limits_.nodes)
            throw Error(0, "aliases make the document more than " + std::to_string(limits_.nodes) +
                               " nodes long (each alias copies what its anchor names)");
    }

    // A complete node: the root, or the next item of the open list or map.
    Node* put(Node n, unsigned depth) {
        count(1);
        if (open_.size() + depth > limits_.depth)
            throw Error(n.line(), "the document nests more than " + std::to_string(limits_.depth) + " levels deep", true);
        if (open_.empty()) {
            root_ = std::move(n);
            done_ = true;
            return &root_;
        }
        Node& parent = *open_.back().node;
        parent.items_.push_back(std::move(n));
        return &parent.items_.back();
    }

    std::string_view text_;
    Limits& limits_;
    size_t bom_;  // the UTF-8 byte-order mark's length, 0 or 3
    bool utf8_;   // no NUL: not UTF-16 or UTF-32
    Node root_;
    bool done_ = false;
    std::vector<Open> open_;  // the lists and maps being read, outermost first
    std::unordered_map<YAML::anchor_t, Anchor> anchors_;
};

Node parse(std::string_view text, Limits& limits) { return Builder(text, limits).run(); }

bool read_bool(const std::string& s, bool& out) {
    // Any case of one form only: all lower, all upper, or a capital then lower (yes, YES, Yes).
    auto all = [&](size_t from, int (*is)(int)) {
        for (size_t i = from; i < s.size(); ++i)
            if (!is(static_cast<unsigned char>(s[i]))) return false;
        return true;
    };
    if (!(all(0, islower) || (!s.empty() && isupper(static_cast<unsigned char>(s[0])) && (all(1, islower) || all(1, isupper)))))
        return false;
    std::string lower;
    for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
    static const char* const words[][2] = {{"y", "n"}, {"yes", "no"}, {"true", "false"}, {"on", "off"}};
    for (const auto& w : words) {
        if (lower == w[0]) return out = true, true;
        if (lower == w[1]) return out = false, true;
    }
    return false;
}

// ---- Writing

namespace {

// Whether `s` written plain reads back as the same string (in a flow collection: `in_flow`).
bool plain_ok(const std::string& s, bool in_flow) {
    if (null_word(s) || s.back() == ' ') return false;
    const auto c0 = static_cast<unsigned char>(s[0]);
    const char next = s.size() > 1 ? s[1] : ' ';
    if (c0 == ' ' || std::strchr(in_flow ? "?,[]{}#&*!|>'\"%@`" : ",[]{}#&*!|>'\"%@`", c0)) return false;
    if (std::strchr(in_flow ? "-:" : "-?:", c0) && (next == ' ' || s.size() == 1)) return false;
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        const char after = i + 1 < s.size() ? s[i + 1] : ' ';
        if (c < 0x20 || c == 0x7f) return false;
        if (c == ':' && (after == ' ' || (in_flow && std::strchr(",]}", after)))) return false;
        if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
        if (in_flow && std::strchr(",?[]{}", c)) return false;
    }
    return true;
}

void quoted(std::string& out, const std::string& s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                static const char hex[] = "0123456789ABCDEF";
                out += "\\x";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

void scalar(std::string& out, const Node& n, bool in_flow) {
    if (!n.is_scalar()) out += '~';
    else if (plain_ok(n.value(), in_flow)) out += n.value();
    else quoted(out, n.value());
}

void flow(std::string& out, const Node& n) {
    if (n.is_sequence()) {
        out += '[';
        for (size_t i = 0; i < n.size(); ++i) {
            if (i) out += ", ";
            flow(out, n[i]);
        }
        out += ']';
    } else if (n.is_map()) {
        out += '{';
        for (size_t i = 0; i < n.size(); ++i) {
            if (i) out += ", ";
            flow(out, n.key(i));
            out += ": ";
            flow(out, n.value(i));
        }
        out += '}';
    } else {
        scalar(out, n, true);
    }
}

bool inline_value(const Node& n) { return !(n.is_map() || n.is_sequence()) || n.flow() || n.size() == 0; }

void value(std::string& out, const Node& n) {
    if (n.is_map() || n.is_sequence()) flow(out, n);
    else scalar(out, n, false);
}

void block(std::string& out, const Node& n, size_t indent, bool first_inline);

// A map's pairs or a list's items, each on its own line at `indent` (the first after what the
// line holds already when `first_inline`).
void block(std::string& out, const Node& n, size_t indent, bool first_inline) {
    for (size_t i = 0; i < n.size(); ++i) {
        if (i > 0 || !first_inline) out.append(indent, ' ');
        const Node& v = n.is_map() ? n.value(i) : n[i];
        if (n.is_map()) {
            scalar(out, n.key(i), false);
            out += ':';
        } else {
            out += '-';
        }
        if (inline_value(v)) {
            out += ' ';
            value(out, v);
            out += '\n';
        } else if (n.is_sequence()) {  // "- a: 1" with the rest of its map below it
            out += ' ';
            block(out, v, indent + 2, true);
        } else {
            out += '\n';
            block(out, v, indent + 2, false);
        }
    }
}

}  // namespace

std::string write(const Node& doc, const std::string& comment) {
    std::string out;
    if (!comment.empty()) out += "# " + comment + "\n";
    if (inline_value(doc)) {
        value(out, doc);
        out += '\n';
    } else {
        block(out, doc, 0, false);
    }
    return out;
}

std::string write_flow(const Node& v) {
    std::string out;
    flow(out, v);
    return out;
}

}  // namespace gpuvp::yaml
