#include "sc_main/scenario/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
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

// ---- Reading: libyaml's events into nodes

class Builder {
public:
    explicit Builder(Limits& limits) : limits_(limits) {}

    Node run(std::string_view text) {
        yaml_parser_t p;
        if (!yaml_parser_initialize(&p)) throw Error(0, "out of memory", true);
        std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> own(&p, yaml_parser_delete);
        yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
        for (;;) {
            yaml_event_t e;
            if (!yaml_parser_parse(&p, &e)) {
                const yaml_mark_t& at = p.problem ? p.problem_mark : p.context_mark;
                std::string what = p.problem ? p.problem : "unknown error";
                if (p.context) {  // "while parsing a flow sequence", and where that began
                    what += std::string(" ") + p.context;
                    if (p.problem && p.context_mark.line != p.problem_mark.line)
                        what += " that begins at line " + std::to_string(p.context_mark.line + 1);
                }
                throw Error(int(at.line) + 1, what, true);
            }
            std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> event(&e, yaml_event_delete);
            if (e.type == YAML_DOCUMENT_END_EVENT || e.type == YAML_STREAM_END_EVENT) break;  // the first document only
            event_(e);
        }
        return done_ ? std::move(root_) : Node::null();
    }

private:
    struct Open {
        Node* node;
        std::string anchor;
    };
    struct Anchor {
        Node node;
        uint64_t nodes = 0;
        unsigned depth = 0;
    };

    static std::string str(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

    void event_(const yaml_event_t& e) {
        const int line = int(e.start_mark.line) + 1;
        switch (e.type) {
        case YAML_SCALAR_EVENT: {
            const auto& s = e.data.scalar;
            const std::string tag = str(s.tag);
            std::string value(reinterpret_cast<const char*>(s.value), s.length);
            const bool plain = s.style == YAML_PLAIN_SCALAR_STYLE || s.style == YAML_ANY_SCALAR_STYLE;
            Node n = plain && tag.empty() && null_word(value)
                         ? Node::null(line)
                         : Node::scalar(std::move(value), line,
                                        !plain || tag == "!" || (tag.size() >= 4 && tag.compare(tag.size() - 4, 4, ":str") == 0));
            if (s.anchor) remember(str(s.anchor), n, 1, 1);
            put(std::move(n), 1);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
            open(Node::sequence(e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE, line), str(e.data.sequence_start.anchor));
            break;
        case YAML_MAPPING_START_EVENT:
            open(Node::map(e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE, line), str(e.data.mapping_start.anchor));
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            const Open o = std::move(open_.back());
            open_.pop_back();
            if (!o.anchor.empty()) {
                uint64_t nodes = 0;
                unsigned depth = 0;
                measure(*o.node, nodes, depth);
                remember(o.anchor, *o.node, nodes, depth);
            }
            break;
        }
        case YAML_ALIAS_EVENT: {
            const std::string name = str(e.data.alias.anchor);
            for (const Open& o : open_)
                if (o.anchor == name)  // inside its own anchor's value: it would nest for ever
                    throw Error(0, "aliases nest the document more than " + std::to_string(limits_.depth) +
                                       " levels deep (an alias inside its own anchor's value nests it for ever)");
            auto it = anchors_.find(name);
            if (it == anchors_.end()) throw Error(line, "unknown anchor '" + name + "' (an alias names an anchor written before it)", true);
            if (open_.size() + it->second.depth > limits_.depth)
                throw Error(0, "aliases nest the document more than " + std::to_string(limits_.depth) + " levels deep");
            count(it->second.nodes - 1);
            put(Node(it->second.node), it->second.depth);
            break;
        }
        default: break;  // stream and document starts
        }
    }

    void remember(const std::string& name, const Node& n, uint64_t nodes, unsigned depth) {
        anchors_[name] = Anchor{n, nodes, depth};  // a later anchor of the same name replaces it
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
    void open(Node n, std::string anchor) { open_.push_back({put(std::move(n), 1), std::move(anchor)}); }

    Limits& limits_;
    Node root_;
    bool done_ = false;
    std::vector<Open> open_;  // the lists and maps being read, outermost first
    std::unordered_map<std::string, Anchor> anchors_;
};

Node parse(std::string_view text, Limits& limits) { return Builder(limits).run(text); }

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
