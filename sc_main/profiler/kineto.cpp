// Kineto's Chrome-trace JSON (the PyTorch profiler's; CUPTI on CUDA, roctracer on ROCm) into a
// ProfilerTrace, in one pass of nlohmann's SAX parser: each event of traceEvents is read into a
// flat Event and kept (kernels, copies, fills, runtime calls, sync records) or dropped; no
// document is built. Numbers keep their text, so ts and dur (µs, up to 3 decimals) become ns
// exactly.
#include "sc_main/profiler/profiler_trace.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <iterator>
#include <limits>
#include <unordered_map>

namespace gpuvp {

namespace {

using json = nlohmann::json;

// A kernel whose event has no grid or block (roctracer's kernel records) takes them from its
// launch call (hipLaunchKernel's args, joined by correlation); without one it gets these: blocks
// of 256 work-items (PyTorch's usual block on ROCm) and one block per SM (CU) of its device as
// deviceProperties gives them, else one block.
constexpr std::array<uint32_t, 3> kDefaultBlock{256, 1, 1};
constexpr uint32_t kDefaultBlocksPerSm = 1;

// CUPTI's "no stream" (uint32 -1) in Context Sync records.
constexpr int64_t kCuptiNoStream = 4294967295;

// A value as the parser gave it. Floats keep their text; so do integers beyond int64.
struct Value {
    enum class Type : uint8_t { none, integer, number, text, other };
    Type type = Type::none;
    int64_t integer = 0;
    std::string text;  // a number's text, a string's value

    bool present() const { return type != Type::none; }
    bool is_text() const { return type == Type::text; }
};

// One element of traceEvents: the members a kept event may use.
struct Event {
    uint64_t offset = 0;
    bool dropped = false;  // ph or cat say it is not kept: what follows is not stored
    Value ph, cat, name, pid, tid, ts, dur;
    // args
    Value device, stream, correlation, registers, shared, bytes, size, sync_kind, wait_on_stream, wait_on_record, wait_on_event;
    std::array<Value, 3> grid, block;
    size_t grid_n = 0, block_n = 0;  // elements given (more than 3: wrong)
    bool grid_seen = false, block_seen = false;
};

// One element of deviceProperties.
struct Device {
    uint64_t offset = 0;
    Value id, name, sms, warp, threads_block, threads_sm, regs_sm, regs_block, shared_sm, shared_block, shared_optin,
        global, major, minor;
    bool rocm_keys = false;  // a key only ROCm's deviceProperties has
};

// A launch or copy call's arguments that its GPU op may lack (roctracer's), by correlation.
struct CallArgs {
    bool shape = false;
    bool grid_in_items = false;  // hipExtModuleLaunchKernel, hipHccModuleLaunchKernel: global work size
    std::array<uint32_t, 3> grid{}, block{};
    std::optional<uint32_t> shared;
    std::optional<uint64_t> size;
};

enum class Category : uint8_t { none, kernel, copy, fill, call, sync };

Category category(const Event& e) {
    if (!e.cat.is_text()) return Category::none;
    const std::string& c = e.cat.text;
    if (c == "kernel") return Category::kernel;
    if (c == "gpu_memcpy") return Category::copy;
    if (c == "gpu_memset") return Category::fill;
    if (c == "cuda_runtime" || c == "cuda_driver") return Category::call;
    if (c == "cuda_sync") return Category::sync;
    return Category::none;
}

std::string shown(const Value& v) {
    switch (v.type) {
    case Value::Type::none: return "nothing";
    case Value::Type::integer: return std::to_string(v.integer);
    case Value::Type::number: return v.text;
    case Value::Type::text: return "\"" + v.text.substr(0, 40) + (v.text.size() > 40 ? "...\"" : "\"");
    case Value::Type::other: return "a non-number value";
    }
    return {};
}

// The text as it is read, telling the handler how far the parser has read (so that it knows
// where each event starts).
class Reading {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    Reading() = default;
    Reading(const char* p, const char** read) : p_(p), read_(read) {}
    reference operator*() const { return *p_; }
    Reading& operator++() {
        *read_ = ++p_;
        return *this;
    }
    Reading operator++(int) {
        Reading r = *this;
        ++*this;
        return r;
    }
    bool operator==(const Reading& o) const { return p_ == o.p_; }
    bool operator!=(const Reading& o) const { return p_ != o.p_; }

private:
    const char* p_ = nullptr;
    const char** read_ = nullptr;
};

class Reader : public nlohmann::json_sax<json> {
public:
    Reader(const std::string& text, const std::string& file, const ReadProgress& progress)
        : file_(file), size_(text.size()), begin_(text.data()), read_(text.data()), progress_(progress),
          next_report_(0) {
        trace.format = ProfilerTrace::Format::kineto;
        trace.file = file;
    }

    ProfilerTrace trace;
    std::optional<TraceError> error;

    const char** read() { return &read_; }

    bool null() override { return other(); }
    bool boolean(bool) override { return other(); }
    bool binary(binary_t&) override { return other(); }
    bool number_integer(number_integer_t v) override {
        if (Value* s = slot()) {
            s->type = Value::Type::integer;
            s->integer = v;
        }
        return true;
    }
    bool number_unsigned(number_unsigned_t v) override {
        if (Value* s = slot()) {
            if (v <= uint64_t(std::numeric_limits<int64_t>::max())) {
                s->type = Value::Type::integer;
                s->integer = int64_t(v);
            } else {
                s->type = Value::Type::number;
                s->text = std::to_string(v);
            }
        }
        return true;
    }
    bool number_float(number_float_t, const string_t& text) override {
        if (Value* s = slot()) {
            s->type = Value::Type::number;
            s->text = text;
        }
        return true;
    }
    bool string(string_t& v) override {
        if (Value* s = slot()) {
            s->type = Value::Type::text;
            s->text = std::move(v);
            if (s == &event_.ph || s == &event_.cat)
                event_.dropped = (event_.ph.present() && !(event_.ph.is_text() && event_.ph.text == "X")) ||
                                 (event_.cat.present() && category(event_) == Category::none);
        }
        return true;
    }
    bool key(string_t& k) override {
        if (skip_ == 0) key_.swap(k);
        return true;
    }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
        std::string why = e.what();
        if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) why.erase(0, why.find("] ") + 2);
        if (position > size_)  // (the text ran out: a file cut short)
            error = TraceError(file_, TraceError::Where::none, size_,
                               "the JSON text ends at byte " + std::to_string(size_) +
                                   ", before the trace is complete (the file is cut short?): " + why);
        else
            error = TraceError(file_, TraceError::Where::byte, position > 0 ? position - 1 : 0, "not JSON: " + why);
        return false;
    }

    // After the parse: the joins by correlation, the defaults, the order.
    void finish();

private:
    enum class In : uint8_t { root, events, devices, event, device, args, grid, block, skip };

    const std::string& file_;
    size_t size_;  // the text's
    const char* begin_;
    const char* read_;  // where the parser has read to
    const ReadProgress& progress_;
    size_t next_report_;  // how far the parser will have read when progress_ is next called
    std::vector<In> stack_;
    size_t skip_ = 0;   // depth inside a container stepped over
    std::string key_;
    Event event_;
    Device device_;
    // Kept for finish(): calls' HIP stream handles, launch and copy arguments by correlation,
    // the ops still without a shape or a size.
    std::vector<std::pair<size_t, uint64_t>> call_handles_;
    std::unordered_map<int64_t, CallArgs> call_args_;
    std::vector<size_t> shapeless_, sizeless_;

    uint64_t here() const { return uint64_t(read_ - begin_) - 1; }  // the '{' or '[' just read

    bool fail(uint64_t at, std::string why) {
        error = TraceError(file_, TraceError::Where::byte, at, std::move(why));
        return false;
    }

    bool other() {
        if (Value* s = slot()) s->type = Value::Type::other;
        return true;
    }

    // Where a scalar read now goes, if anywhere.
    Value* slot() {
        if (skip_ > 0 || stack_.empty()) return nullptr;
        switch (stack_.back()) {
        case In::event: return event_.dropped ? nullptr : event_member();
        case In::args: return event_.dropped ? nullptr : arg_member();
        case In::grid: return event_.grid_n++ < 3 ? &event_.grid[event_.grid_n - 1] : nullptr;
        case In::block: return event_.block_n++ < 3 ? &event_.block[event_.block_n - 1] : nullptr;
        case In::device: return device_member();
        default: return nullptr;
        }
    }
    Value* event_member() {
        const std::string& k = key_;
        if (k == "ph") return &event_.ph;
        if (k == "cat") return &event_.cat;
        if (k == "name") return &event_.name;
        if (k == "pid") return &event_.pid;
        if (k == "tid") return &event_.tid;
        if (k == "ts") return &event_.ts;
        if (k == "dur") return &event_.dur;
        return nullptr;
    }
    Value* arg_member() {
        const std::string& k = key_;
        if (k == "device") return &event_.device;
        if (k == "stream") return &event_.stream;
        if (k == "correlation") return &event_.correlation;
        if (k == "registers per thread") return &event_.registers;
        if (k == "shared memory") return &event_.shared;
        if (k == "bytes") return &event_.bytes;
        if (k == "size") return &event_.size;
        if (k == "cuda_sync_kind") return &event_.sync_kind;
        if (k == "wait_on_stream") return &event_.wait_on_stream;
        if (k == "wait_on_cuda_event_record_corr_id") return &event_.wait_on_record;
        if (k == "wait_on_cuda_event_id") return &event_.wait_on_event;
        return nullptr;
    }
    Value* device_member() {
        const std::string& k = key_;
        if (k == "id") return &device_.id;
        if (k == "name") return &device_.name;
        if (k == "numSms") return &device_.sms;
        if (k == "warpSize") return &device_.warp;
        if (k == "maxThreadsPerBlock") return &device_.threads_block;
        if (k == "maxThreadsPerMultiprocessor") return &device_.threads_sm;
        if (k == "regsPerMultiprocessor") return &device_.regs_sm;
        if (k == "regsPerBlock") return &device_.regs_block;
        if (k == "sharedMemPerMultiprocessor") return &device_.shared_sm;
        if (k == "maxSharedMemoryPerMultiProcessor") {  // ROCm's name for it
            device_.rocm_keys = true;
            return &device_.shared_sm;
        }
        if (k == "sharedMemPerBlock") return &device_.shared_block;
        if (k == "sharedMemPerBlockOptin") return &device_.shared_optin;
        if (k == "totalGlobalMem") return &device_.global;
        if (k == "computeMajor") return &device_.major;
        if (k == "computeMinor") return &device_.minor;
        return nullptr;
    }

    bool open(bool object) {
        if (progress_ && size_t(read_ - begin_) >= next_report_) {
            progress_(size_t(read_ - begin_), size_);
            next_report_ = size_t(read_ - begin_) + std::max<size_t>(size_ / 200, 1);
        }
        if (skip_ > 0) {
            ++skip_;
            return true;
        }
        other();  // an object or array where a scalar belongs
        In next = In::skip;
        if (stack_.empty()) {
            if (object) next = In::root;
        } else {
            switch (stack_.back()) {
            case In::root:
                if (!object && key_ == "traceEvents") next = In::events;
                if (!object && key_ == "deviceProperties") next = In::devices;
                break;
            case In::events:
                if (object) {
                    event_ = Event{};
                    event_.offset = here();
                    next = In::event;
                }
                break;
            case In::devices:
                if (object) {
                    device_ = Device{};
                    device_.offset = here();
                    next = In::device;
                }
                break;
            case In::event:
                if (object && key_ == "args" && !event_.dropped) next = In::args;
                break;
            case In::args:
                if (!object && key_ == "grid") {
                    event_.grid_seen = true;
                    event_.grid_n = 0;
                    next = In::grid;
                } else if (!object && key_ == "block") {
                    event_.block_seen = true;
                    event_.block_n = 0;
                    next = In::block;
                }
                break;
            default: break;
            }
        }
        if (next == In::skip) {
            skip_ = 1;
            return true;
        }
        stack_.push_back(next);
        return true;
    }

    bool close() {
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const In in = stack_.back();
        stack_.pop_back();
        if (in == In::event) return end_event();
        if (in == In::device) return end_device();
        return true;
    }

    // Conversions, failing at the element being read with its member named.
    bool integer(const Value& v, const std::string& what, uint64_t at, int64_t& out) {
        if (v.type == Value::Type::integer) {
            out = v.integer;
            return true;
        }
        if (v.type == Value::Type::number) {  // 7.0 is 7; 7.5 is no integer
            const std::optional<int64_t> milli = parse_decimal(v.text, 3);
            if (milli && *milli % 1000 == 0) {
                out = *milli / 1000;
                return true;
            }
        }
        return fail(at, what + ": an integer expected, found " + shown(v));
    }
    template <class T>
    bool count(const Value& v, const std::string& what, uint64_t at, T& out, int64_t min = 0) {
        int64_t i = 0;
        if (!integer(v, what, at, i)) return false;
        if (i < min || uint64_t(i) > std::numeric_limits<T>::max())
            return fail(at, what + ": " + std::to_string(i) + " is out of range");
        out = T(i);
        return true;
    }
    bool nanoseconds(const Value& v, const std::string& what, uint64_t at, int64_t& out) {
        if (v.type == Value::Type::integer) {
            if (__builtin_mul_overflow(v.integer, int64_t(1000), &out)) return fail(at, what + ": out of range");
            return true;
        }
        if (v.type == Value::Type::number) {
            if (const std::optional<int64_t> ns = parse_decimal(v.text, 3)) {
                out = *ns;
                return true;
            }
            return fail(at, what + ": out of range (" + v.text + ")");
        }
        return fail(at, what + ": a number (µs) expected, found " + shown(v));
    }

    bool end_event() {
        if (event_.dropped) return true;
        if (!(event_.ph.is_text() && event_.ph.text == "X")) return true;
        const Category c = category(event_);
        if (c == Category::none) return true;
        const Event& e = event_;
        const uint64_t at = e.offset;
        const std::string cat = e.cat.text + " event";
        if (!e.ts.present() || !e.dur.present()) return fail(at, cat + " without ts or dur");
        int64_t start = 0, dur = 0, end = 0;
        if (!nanoseconds(e.ts, cat + ": ts", at, start) || !nanoseconds(e.dur, cat + ": dur", at, dur)) return false;
        if (dur < 0) return fail(at, cat + ": dur is negative (" + shown(e.dur) + ")");
        if (__builtin_add_overflow(start, dur, &end)) return fail(at, cat + ": ts + dur out of range");
        int64_t correlation = -1;
        if (e.correlation.present() && !integer(e.correlation, cat + ": args.correlation", at, correlation)) return false;
        switch (c) {
        case Category::kernel:
        case Category::copy:
        case Category::fill: return gpu_op(c, cat, start, end, correlation);
        case Category::call: return host_call(cat, start, end, correlation);
        case Category::sync: return sync_record(cat, start, end, correlation);
        case Category::none: break;
        }
        return true;
    }

    bool gpu_op(Category c, const std::string& cat, int64_t start, int64_t end, int64_t correlation) {
        Event& e = event_;
        const uint64_t at = e.offset;
        TraceGpuOp op;
        op.kind = c == Category::kernel ? TraceGpuOp::Kind::kernel : c == Category::copy ? TraceGpuOp::Kind::copy : TraceGpuOp::Kind::fill;
        op.name = e.name.is_text() ? std::move(e.name.text) : std::string();
        op.start_ns = start;
        op.end_ns = end;
        op.correlation = correlation;
        op.offset = at;
        // The GPU's pid is its device and its tid the stream, where args do not say.
        const Value& device = e.device.present() ? e.device : e.pid;
        const Value& stream = e.stream.present() ? e.stream : e.tid;
        if (device.present() && !integer(device, cat + ": device", at, op.device)) return false;
        if (stream.present() && !integer(stream, cat + ": stream", at, op.stream)) return false;
        if (c == Category::kernel) {
            if (e.registers.present() && !count(e.registers, cat + ": args.registers per thread", at, op.registers)) return false;
            if (e.shared.present() && !count(e.shared, cat + ": args.shared memory", at, op.shared_bytes)) return false;
            const bool grid = e.grid_seen, block = e.block_seen;
            if (grid && !shape(e.grid, e.grid_n, cat + ": args.grid", op.grid)) return false;
            if (block && !shape(e.block, e.block_n, cat + ": args.block", op.block)) return false;
            if (!grid || !block) shapeless_.push_back(trace.ops.size());
        } else if (e.bytes.present()) {
            if (!count(e.bytes, cat + ": args.bytes", at, op.bytes)) return false;
        } else {
            sizeless_.push_back(trace.ops.size());
        }
        trace.ops.push_back(std::move(op));
        return true;
    }

    bool shape(const std::array<Value, 3>& v, size_t n, const std::string& what, std::array<uint32_t, 3>& out) {
        if (n != 3) return fail(event_.offset, what + ": 3 integers expected, found " + std::to_string(n) + " values");
        for (size_t i = 0; i < 3; ++i)
            if (!count(v[i], what + "[" + std::to_string(i) + "]", event_.offset, out[i], 1)) return false;
        return true;
    }

    bool host_call(const std::string& cat, int64_t start, int64_t end, int64_t correlation) {
        Event& e = event_;
        const uint64_t at = e.offset;
        TraceHostCall call;
        call.name = e.name.is_text() ? std::move(e.name.text) : std::string();
        call.kind = host_call_kind(call.name);
        call.start_ns = start;
        call.end_ns = end;
        call.correlation = correlation;
        call.offset = at;
        if (e.tid.present() && !integer(e.tid, cat + ": tid", at, call.thread)) return false;
        // HIP's calls give their stream as a handle ("0x0", "0x55d0c1a3b2c0"), numbered in finish().
        if (e.stream.is_text()) {
            const std::string& h = e.stream.text;
            uint64_t handle = 0;
            if (h.size() > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
                const auto r = std::from_chars(h.data() + 2, h.data() + h.size(), handle, 16);
                if (r.ec == std::errc() && r.ptr == h.data() + h.size()) call_handles_.emplace_back(trace.calls.size(), handle);
            }
        } else if (e.stream.present()) {
            int64_t s = 0;
            if (!integer(e.stream, cat + ": args.stream", at, s)) return false;
            call.stream = s;
        }
        // roctracer's launch and copy calls carry what their kernel and copy records lack.
        if (correlation >= 0 && ((e.grid_seen && e.block_seen) || e.size.present())) {
            CallArgs a;
            if (e.grid_seen && e.block_seen) {
                if (!shape(e.grid, e.grid_n, cat + ": args.grid", a.grid) || !shape(e.block, e.block_n, cat + ": args.block", a.block))
                    return false;
                a.shape = true;
                a.grid_in_items = call.name == "hipExtModuleLaunchKernel" || call.name == "hipHccModuleLaunchKernel";
                uint32_t shared = 0;
                if (e.shared.present()) {
                    if (!count(e.shared, cat + ": args.shared memory", at, shared)) return false;
                    a.shared = shared;
                }
            }
            if (e.size.present()) {  // a string of digits in roctracer's copies
                Value size = e.size;
                if (size.is_text()) size.type = Value::Type::number;
                uint64_t bytes = 0;
                if (!count(size, cat + ": args.size", at, bytes)) return false;
                a.size = bytes;
            }
            call_args_[correlation] = a;
        }
        trace.calls.push_back(std::move(call));
        return true;
    }

    bool sync_record(const std::string& cat, int64_t start, int64_t end, int64_t correlation) {
        const Event& e = event_;
        const uint64_t at = e.offset;
        const Value& kind = e.sync_kind.is_text() ? e.sync_kind : e.name;
        TraceSync s;
        if (kind.text == "Stream Sync")
            s.kind = TraceSync::Kind::stream_sync;
        else if (kind.text == "Event Sync")
            s.kind = TraceSync::Kind::event_sync;
        else if (kind.text == "Context Sync")
            s.kind = TraceSync::Kind::context_sync;
        else if (kind.text == "Stream Wait Event")
            s.kind = TraceSync::Kind::stream_wait_event;
        else
            return true;  // a kind CUPTI may add: not one the replay knows
        s.correlation = correlation;
        s.start_ns = start;
        s.end_ns = end;
        s.offset = at;
        const Value& device = e.device.present() ? e.device : e.pid;
        if (device.present() && !integer(device, cat + ": device", at, s.device)) return false;
        if (e.stream.present() && !integer(e.stream, cat + ": args.stream", at, s.stream)) return false;
        if (e.wait_on_stream.present() && !integer(e.wait_on_stream, cat + ": args.wait_on_stream", at, s.wait_on_stream)) return false;
        if (e.wait_on_record.present() &&
            !integer(e.wait_on_record, cat + ": args.wait_on_cuda_event_record_corr_id", at, s.wait_on_event_record))
            return false;
        if (e.wait_on_event.present() && !integer(e.wait_on_event, cat + ": args.wait_on_cuda_event_id", at, s.event)) return false;
        for (int64_t* v : {&s.stream, &s.wait_on_stream})
            if (*v == kCuptiNoStream) *v = -1;
        trace.syncs.push_back(s);
        return true;
    }

    bool end_device() {
        const Device& d = device_;
        const uint64_t at = d.offset;
        TraceDevice t;
        t.id = int64_t(trace.devices.size());
        if (d.id.present() && !integer(d.id, "deviceProperties: id", at, t.id)) return false;
        if (d.name.is_text()) t.name = d.name.text;
        struct Field {
            const Value& value;
            const char* key;
            std::optional<uint32_t>& out;
        };
        std::optional<uint32_t> optin;
        const Field fields[] = {
            {d.sms, "numSms", t.sms},
            {d.warp, "warpSize", t.warp_size},
            {d.threads_block, "maxThreadsPerBlock", t.max_threads_per_block},
            {d.threads_sm, "maxThreadsPerMultiprocessor", t.max_threads_per_sm},
            {d.regs_sm, "regsPerMultiprocessor", t.registers_per_sm},
            {d.regs_block, "regsPerBlock", t.registers_per_block},
            {d.shared_sm, d.rocm_keys ? "maxSharedMemoryPerMultiProcessor" : "sharedMemPerMultiprocessor", t.shared_per_sm},
            {d.shared_block, "sharedMemPerBlock", t.shared_per_block},
            {d.shared_optin, "sharedMemPerBlockOptin", optin},
            {d.major, "computeMajor", t.compute_major},
            {d.minor, "computeMinor", t.compute_minor},
        };
        for (const Field& f : fields) {
            if (!f.value.present()) continue;
            uint32_t v = 0;
            if (!count(f.value, std::string("deviceProperties: ") + f.key, at, v)) return false;
            f.out = v;
        }
        if (d.global.present()) {
            uint64_t v = 0;
            if (!count(d.global, "deviceProperties: totalGlobalMem", at, v)) return false;
            t.global_memory = v;
        }
        // A block may have what the kernel opts in to (cudaFuncSetAttribute), more than the
        // 48 KB default: the most a block can have is the larger.
        if (optin && (!t.shared_per_block || *optin > *t.shared_per_block)) t.shared_per_block = optin;
        t.amd = d.rocm_keys || t.warp_size == 64u || t.name.find("AMD") != std::string::npos;
        trace.devices.push_back(std::move(t));
        return true;
    }
};

void Reader::finish() {
    std::unordered_map<int64_t, size_t> op_of;  // correlation -> an op of it
    for (size_t i = 0; i < trace.ops.size(); ++i)
        if (trace.ops[i].correlation >= 0) op_of.emplace(trace.ops[i].correlation, i);
    // A HIP stream handle is the stream of the ops its calls launched; a handle no launched op
    // names stays unnumbered.
    std::unordered_map<uint64_t, int64_t> stream_of;
    for (const auto& [call, handle] : call_handles_) {
        const auto op = op_of.find(trace.calls[call].correlation);
        if (op != op_of.end()) stream_of.emplace(handle, trace.ops[op->second].stream);
    }
    for (const auto& [call, handle] : call_handles_) {
        const auto s = stream_of.find(handle);
        if (s != stream_of.end()) trace.calls[call].stream = s->second;
    }
    // A synchronising call's stream is its sync record's.
    std::unordered_map<int64_t, int64_t> sync_stream;
    for (const TraceSync& s : trace.syncs)
        if (s.correlation >= 0 && s.stream >= 0) sync_stream.emplace(s.correlation, s.stream);
    for (TraceHostCall& c : trace.calls)
        if (!c.stream) {
            const auto s = sync_stream.find(c.correlation);
            if (s != sync_stream.end()) c.stream = s->second;
        }
    for (const size_t i : shapeless_) {
        TraceGpuOp& op = trace.ops[i];
        const auto a = call_args_.find(op.correlation);
        if (a != call_args_.end() && a->second.shape) {
            op.block = a->second.block;
            op.grid = a->second.grid;
            if (a->second.grid_in_items)
                for (size_t d = 0; d < 3; ++d) op.grid[d] = detail::blocks_of(op.grid[d], op.block[d]);
            if (a->second.shared && op.shared_bytes == 0) op.shared_bytes = *a->second.shared;
            continue;
        }
        uint32_t sms = 1;
        for (const TraceDevice& d : trace.devices)
            if (d.id == op.device && d.sms && *d.sms > 0) sms = *d.sms;
        op.block = kDefaultBlock;
        op.grid = {sms * kDefaultBlocksPerSm, 1, 1};
        op.shape_defaulted = true;
        ++trace.shapes_defaulted;
    }
    for (const size_t i : sizeless_) {
        const auto a = call_args_.find(trace.ops[i].correlation);
        if (a != call_args_.end() && a->second.size) trace.ops[i].bytes = *a->second.size;
    }
    detail::sort_by_start(trace);
}

}  // namespace

ProfilerTrace parse_kineto(const std::string& text, const std::string& file, const ReadProgress& progress) {
    Reader reader(text, file, progress);
    const char* b = text.data();
    json::sax_parse(Reading(b, reader.read()), Reading(b + text.size(), reader.read()), &reader);
    if (reader.error) throw *reader.error;
    size_t kernels = 0;
    for (const TraceGpuOp& op : reader.trace.ops) kernels += op.kind == TraceGpuOp::Kind::kernel;
    if (kernels == 0) throw TraceError(file, TraceError::Where::none, 0, "no kernels (no traceEvents with cat \"kernel\" and ph \"X\")");
    reader.finish();
    return std::move(reader.trace);
}

}  // namespace gpuvp
