// Typed records described once, member by member: each record type lists its members with
// their names (and, for statistics, a description and a unit) in one static `fields`
// function, and every reader and writer of the record walks that list: the JSON writer
// (results.json), the JSON reader (`gpuvp report DIR`, a variant's results from its child
// process), the lookup of a path (an expectation's `sms.0.busy_fraction`) and the listing of
// every statistic (`gpuvp stats`, docs/results.md).
//
//   struct CacheStats {
//       uint64_t read_hits = 0;
//       template <class S, class V> static void fields(S& s, V& v) {
//           v("read_hits", s.read_hits, Doc{"count", "reads that hit"});
//       }
//   };
//
// Member types: bool, integers, double, std::string, another record, std::vector of one,
// Named<T> (an object whose keys are data: {"0": ..., "2": ...}), std::optional<T> (null when
// empty) and Omit<T> (left out when empty), a json value as it is (an expectation's value), and
// a typed value written as text (a type with `text_tag`, `text()` and `static T from_text`: a
// kernel's status).
#pragma once
#include <gpuvp/models/common/stats.h>
#include "sc_main/record/json_text.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpuvp {

// A member that is left out of the JSON object when empty (std::optional writes null).
template <class T>
struct Omit : std::optional<T> {
    using std::optional<T>::optional;
    // (emplace: for Omit<std::optional<U>>, optional's own assignment would take an empty
    // std::optional<U> for "no value" and leave the member out instead of writing null)
    Omit& operator=(const T& v) {
        this->emplace(v);
        return *this;
    }
    Omit& operator=(T&& v) {
        this->emplace(std::move(v));
        return *this;
    }
    Omit& operator=(std::nullopt_t) {
        this->reset();
        return *this;
    }
};

// An object whose keys are data, in order.
template <class T>
using Named = std::vector<std::pair<std::string, T>>;

namespace fields {

using json = nlohmann::ordered_json;

template <class T, class = void>
struct is_record : std::false_type {};
template <class T>
struct is_record<T, std::void_t<typename T::record_tag>> : std::true_type {};
template <class T, class = void>
struct is_text : std::false_type {};
template <class T>
struct is_text<T, std::void_t<typename T::text_tag>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_named : std::false_type {};
template <class T>
struct is_named<std::vector<std::pair<std::string, T>>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_omit : std::false_type {};
template <class T>
struct is_omit<Omit<T>> : std::true_type {};

// ---- Writing: the record as an ordered_json (members in declaration order).

template <class T>
json to_json(const T& x);

struct Counter {
    size_t n = 0;
    template <class M>
    void operator()(std::string_view, const M&, const Doc& = {}) { ++n; }
};

struct Writer {
    json::object_t* out;
    template <class M>
    void operator()(std::string_view name, const M& m, const Doc& = {}) {
        if constexpr (is_omit<M>::value) {
            if (!m) return;
            out->emplace_back(std::string(name), to_json(*m));
        } else {
            out->emplace_back(std::string(name), to_json(m));
        }
    }
};

template <class T>
json to_json(const T& x) {
    if constexpr (is_record<T>::value) {
        // Room first: an ordered_json object is a vector of pairs with a const key, so growing
        // it copies every member already in it, deeply (a run's 1000 kernels, several times).
        Counter count;
        T::fields(x, count);
        json j = json::object();
        j.get_ref<json::object_t&>().reserve(count.n);
        Writer w{&j.get_ref<json::object_t&>()};
        T::fields(x, w);
        return j;
    } else if constexpr (std::is_same_v<T, json>) {
        return x;
    } else if constexpr (is_text<T>::value) {
        return json(x.text());
    } else if constexpr (is_optional<T>::value || is_omit<T>::value) {
        return x ? to_json(*x) : json(nullptr);
    } else if constexpr (is_named<T>::value) {
        json j = json::object();
        auto& o = j.get_ref<json::object_t&>();
        o.reserve(x.size());
        for (const auto& [k, v] : x) o.emplace_back(k, to_json(v));
        return j;
    } else if constexpr (is_vector<T>::value) {
        json j = json::array();
        auto& a = j.get_ref<json::array_t&>();
        a.reserve(x.size());
        for (const auto& e : x) a.push_back(to_json(e));
        return j;
    } else {
        return json(x);
    }
}

// ---- Writing text: the record as JSON text, byte for byte what to_json(x).dump(2) writes,
// without the document in between (results_text).

inline void append_indent(std::string& out, int depth) { out.append(size_t(depth) * 2, ' '); }

template <class T>
void append_json(std::string& out, const T& x, int depth);

struct TextWriter {
    std::string* out;
    int depth;         // of the object's members
    bool any = false;  // a member is written: the next one follows a comma
    void key(std::string_view name) {
        *out += any ? ",\n" : "\n";
        any = true;
        append_indent(*out, depth);
        append_json_string(*out, name);
        *out += ": ";
    }
    template <class M>
    void operator()(std::string_view name, const M& m, const Doc& = {}) {
        if constexpr (is_omit<M>::value) {
            if (!m) return;
            key(name);
            append_json(*out, *m, depth);
        } else {
            key(name);
            append_json(*out, m, depth);
        }
    }
    void close() {
        if (any) {
            *out += '\n';
            append_indent(*out, depth - 1);
        }
        *out += '}';
    }
};

template <class T>
void append_json(std::string& out, const T& x, int depth) {
    if constexpr (is_record<T>::value) {
        out += '{';
        TextWriter w{&out, depth + 1};
        T::fields(x, w);
        w.close();
    } else if constexpr (std::is_same_v<T, json>) {
        // dump(2) indents from column 0: each line after the first moves to this depth (a
        // string's newlines are escaped, so every '\n' in the text starts a line).
        const std::string text = x.dump(2);
        for (const char c : text) {
            out += c;
            if (c == '\n') append_indent(out, depth);
        }
    } else if constexpr (is_text<T>::value) {
        append_json_string(out, x.text());
    } else if constexpr (is_optional<T>::value || is_omit<T>::value) {
        if (x) append_json(out, *x, depth);
        else out += "null";
    } else if constexpr (is_named<T>::value) {
        out += '{';
        TextWriter w{&out, depth + 1};
        for (const auto& [k, v] : x) {
            w.key(k);
            append_json(out, v, depth + 1);
        }
        w.close();
    } else if constexpr (is_vector<T>::value) {
        if (x.empty()) {
            out += "[]";
            return;
        }
        out += "[\n";
        for (size_t i = 0; i < x.size(); ++i) {
            if (i) out += ",\n";
            append_indent(out, depth + 1);
            append_json(out, x[i], depth + 1);
        }
        out += '\n';
        append_indent(out, depth);
        out += ']';
    } else if constexpr (std::is_same_v<T, bool>) {
        out += x ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
        char b[24];
        const auto end = std::to_chars(b, b + sizeof b, x).ptr;
        out.append(b, size_t(end - b));
    } else if constexpr (std::is_floating_point_v<T>) {
        append_json_number(out, double(x));
    } else {
        static_assert(std::is_convertible_v<const T&, std::string_view>, "a member type fields cannot write");
        append_json_string(out, x);
    }
}

// ---- Reading: one parsed document into the record. A member missing where the record
// needs it, or of the wrong type, throws FieldError naming it (`kernels[3].stages`).

class FieldError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

template <class T>
void from_json(const json& j, T& x, const std::string& where);

struct Reader {
    const json* in;
    const std::string* where;
    template <class M>
    void operator()(std::string_view name, M& m, const Doc& = {}) {
        const std::string here = where->empty() ? std::string(name) : *where + "." + std::string(name);
        const auto it = in->find(std::string(name));
        if (it == in->end()) {
            if constexpr (is_omit<M>::value) {
                m.reset();
                return;
            } else {
                throw FieldError(here + ": missing");
            }
        }
        from_json(*it, m, here);
    }
};

template <class T>
void from_json(const json& j, T& x, const std::string& where) {
    auto wrong = [&](const char* want) { return FieldError(where + ": " + want + " expected, found " + j.type_name()); };
    if constexpr (is_record<T>::value) {
        if (!j.is_object()) throw wrong("an object");
        Reader r{&j, &where};
        T::fields(x, r);
    } else if constexpr (std::is_same_v<T, json>) {
        x = j;
    } else if constexpr (is_text<T>::value) {
        if (!j.is_string()) throw wrong("a string");
        x = T::from_text(j.get_ref<const std::string&>());
    } else if constexpr (is_omit<T>::value) {  // (present: its absence is the Reader's)
        x.emplace();
        from_json(j, *x, where);
    } else if constexpr (is_optional<T>::value) {
        if (j.is_null()) {
            x.reset();
        } else {
            x.emplace();
            from_json(j, *x, where);
        }
    } else if constexpr (is_named<T>::value) {
        if (!j.is_object()) throw wrong("an object");
        x.clear();
        for (const auto& [k, v] : j.items()) {
            x.emplace_back(k, typename T::value_type::second_type{});
            from_json(v, x.back().second, where + "." + k);
        }
    } else if constexpr (is_vector<T>::value) {
        if (!j.is_array()) throw wrong("an array");
        x.clear();
        x.resize(j.size());
        for (size_t i = 0; i < j.size(); ++i) from_json(j[i], x[i], where + "[" + std::to_string(i) + "]");
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!j.is_string()) throw wrong("a string");
        x = j.get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (!j.is_boolean()) throw wrong("true or false");
        x = j.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
        if (!j.is_number_integer()) throw wrong("an integer");
        if (std::is_unsigned_v<T> && !j.is_number_unsigned()) throw wrong("a non-negative integer");
        x = j.get<T>();
    } else {
        static_assert(std::is_floating_point_v<T>, "a member type fields.h does not know");
        if (!j.is_number()) throw wrong("a number");
        x = j.get<T>();
    }
}

// ---- Looking up a path: dot-separated keys; a list's element by its `name` (the last that
// has it) or its index. The value there as results.json holds it; nullopt if there is none.

template <class T>
std::optional<json> lookup(const T& x, const std::vector<std::string>& keys, size_t i);

struct Finder {
    const std::vector<std::string>* keys;
    size_t i;
    std::optional<json> found;
    bool matched = false;
    template <class M>
    void operator()(std::string_view name, const M& m, const Doc& = {}) {
        if (matched || name != (*keys)[i]) return;
        if constexpr (is_omit<M>::value)
            if (!m) return;
        matched = true;
        found = lookup(m, *keys, i + 1);
    }
};

template <class T>
std::optional<json> lookup(const T& x, const std::vector<std::string>& keys, size_t i) {
    if (i == keys.size()) return to_json(x);
    const std::string& key = keys[i];
    if constexpr (is_record<T>::value) {
        Finder f{&keys, i, std::nullopt};
        T::fields(x, f);
        return f.found;
    } else if constexpr (std::is_same_v<T, json>) {
        const json* cur = &x;
        for (; i < keys.size(); ++i) {
            if (!cur->is_object() || !cur->contains(keys[i])) return std::nullopt;
            cur = &(*cur)[keys[i]];
        }
        return *cur;
    } else if constexpr (is_optional<T>::value || is_omit<T>::value) {
        return x ? lookup(*x, keys, i) : std::nullopt;
    } else if constexpr (is_named<T>::value) {
        for (const auto& [k, v] : x)
            if (k == key) return lookup(v, keys, i + 1);
        return std::nullopt;
    } else if constexpr (is_vector<T>::value) {
        const std::vector<std::string> name{"name"};
        const typename T::value_type* hit = nullptr;
        for (const auto& e : x) {
            const std::optional<json> n = lookup(e, name, 0);
            if (n && *n == key) hit = &e;
        }
        if (!hit && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 9 &&
            std::stoul(key) < x.size())
            hit = &x[std::stoul(key)];
        return hit ? lookup(*hit, keys, i + 1) : std::nullopt;
    } else {
        return std::nullopt;  // a number or a text has no members
    }
}

// The keys of a dot-separated path.
inline std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> keys;
    for (size_t from = 0; from <= path.size();) {
        size_t dot = path.find('.', from);
        if (dot == std::string::npos) dot = path.size();
        keys.push_back(path.substr(from, dot - from));
        from = dot + 1;
    }
    return keys;
}

// ---- Listing: every member of a record type, as a path (a list's elements as `[]`, data
// keys as `<key>`), with its JSON type and its Doc.

struct Listed {
    std::string path, type;
    Doc doc;
    std::string meaning;  // doc.text, after the meanings of the records it sits in
    bool prefix_done = false;
};

template <class T>
void list(std::vector<Listed>& out, const std::string& path, const Doc& doc);

struct Lister {
    std::vector<Listed>* out;
    const std::string* path;
    const Doc* parent;
    template <class M>
    void operator()(std::string_view name, const M&, const Doc& doc = {}) {
        const size_t first = out->size();
        list<M>(*out, path->empty() ? std::string(name) : *path + "." + std::string(name), doc);
        // A member of a nested record reads after its own record's meaning ("busy_ns.vertex":
        // core time busy, by task type: vertex) and takes its unit where it has none.
        if (!parent || !*parent->text) return;
        for (size_t i = first; i < out->size(); ++i) {
            Listed& l = (*out)[i];
            if (l.prefix_done) continue;
            l.prefix_done = true;
            l.meaning = std::string(parent->text) + (l.meaning.empty() ? "" : ": " + l.meaning);
            if (!*l.doc.unit) l.doc.unit = parent->unit;
        }
    }
};

template <class T, class = void>
struct listed_once : std::false_type {};  // a record that holds itself (a run's variants) lists once
template <class T>
struct listed_once<T, std::void_t<decltype(T::listed_once)>> : std::true_type {};

template <class T>
void list(std::vector<Listed>& out, const std::string& path, const Doc& doc) {
    if constexpr (listed_once<T>::value) {
        if (!path.empty()) {
            out.push_back({path, "object", doc, doc.text, true});
            return;
        }
    }
    if constexpr (is_record<T>::value) {
        T probe{};
        Lister l{&out, &path, path.empty() ? nullptr : &doc};
        T::fields(probe, l);
    } else if constexpr (is_optional<T>::value) {
        const size_t first = out.size();
        list<typename T::value_type>(out, path, doc);
        for (size_t i = first; i < out.size(); ++i)
            if (out[i].path == path) out[i].type += " or null";
    } else if constexpr (is_omit<T>::value) {
        list<typename T::value_type>(out, path, doc);
    } else if constexpr (is_named<T>::value) {
        list<typename T::value_type::second_type>(out, path + ".<key>", doc);
    } else if constexpr (is_vector<T>::value) {
        list<typename T::value_type>(out, path + "[]", doc);
    } else {
        const char* type = std::is_same_v<T, std::string> || is_text<T>::value ? "string"
                           : std::is_same_v<T, bool>      ? "bool"
                           : std::is_same_v<T, json>      ? "any"
                           : std::is_integral_v<T>        ? "integer"
                                                          : "number";
        out.push_back({path, type, doc, doc.text, false});
    }
}

}  // namespace fields
}  // namespace gpuvp
