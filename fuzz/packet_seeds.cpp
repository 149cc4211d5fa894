// Writes the `packets` fuzz target's seed corpus (fuzz/packet_input.cpp, seeds()):
//   gpuvp_fuzz_packet_seeds DIR          one file per seed
//   gpuvp_fuzz_packet_seeds --check DIR  exit 1 unless DIR holds exactly those files, byte for byte
// The seeds' packets name the harness's addresses, so they are made here, not by hand; the
// test fuzz:packets:seed-files keeps fuzz/corpus/packets equal to them.
#include "fuzz/packet_input.h"

#include <systemc>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

int sc_main(int argc, char** argv) {
    namespace fs = std::filesystem;
    const bool check = argc == 3 && std::string(argv[1]) == "--check";
    if (argc != 2 && !check) {
        std::fprintf(stderr, "usage: %s [--check] DIR\n", argv[0]);
        return 2;
    }
    const fs::path dir = argv[argc - 1];
    std::set<std::string> names;
    int problems = 0;
    for (const auto& [name, bytes] : gpuvp::fuzz::seeds()) {
        names.insert(name);
        const fs::path file = dir / name;
        if (!check) {
            fs::create_directories(dir);
            std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
            continue;
        }
        std::ifstream in(file, std::ios::binary);
        const std::vector<char> have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.is_open() || have.size() != bytes.size() || !std::equal(have.begin(), have.end(), bytes.begin(),
                                                                         [](char a, uint8_t b) { return uint8_t(a) == b; })) {
            std::fprintf(stderr, "%s: missing or not what %s makes now (run it without --check)\n", file.c_str(), argv[0]);
            ++problems;
        }
    }
    if (check)
        for (const auto& e : fs::directory_iterator(dir))
            if (!names.count(e.path().filename().string())) {
                std::fprintf(stderr, "%s: not a seed %s makes\n", e.path().c_str(), argv[0]);
                ++problems;
            }
    std::printf("%s %zu seeds in %s\n", check ? (problems ? "checked (differences)," : "checked") : "wrote", names.size(),
                dir.c_str());
    return problems ? 1 : 0;
}
