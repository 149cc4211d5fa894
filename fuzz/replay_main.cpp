// The replay program of a fuzz target, for builds without libFuzzer (g++, the ASan + UBSan
// build): gpuvp_fuzz_replay_<target> [--OPTION...] FILE|DIR... runs LLVMFuzzerTestOneInput on
// each file, and on each file of each folder (not recursive; names starting with '.' skipped),
// in name order, in one process, as libFuzzer would. Options (--expect-clean) go to the
// target's LLVMFuzzerInitialize. A bug aborts (the target's own checks, the sanitizers).
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int sc_main(int argc, char** argv) {
    namespace fs = std::filesystem;
    LLVMFuzzerInitialize(&argc, &argv);
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) == 0) continue;  // the target's option
        std::error_code ec;
        if (fs::is_directory(arg, ec)) {
            std::vector<std::string> here;
            for (const auto& e : fs::directory_iterator(arg))
                if (e.is_regular_file() && e.path().filename().string()[0] != '.') here.push_back(e.path().string());
            std::sort(here.begin(), here.end());
            files.insert(files.end(), here.begin(), here.end());
        } else if (fs::is_regular_file(arg, ec)) {
            files.push_back(arg);
        } else {
            std::fprintf(stderr, "%s: no such file or folder\n", arg.c_str());
            return 2;
        }
    }
    for (const std::string& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::printf("%s (%zu bytes)\n", f.c_str(), bytes.size());
        std::fflush(stdout);
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("replayed %zu inputs\n", files.size());
    return 0;
}
