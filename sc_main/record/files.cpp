#include "sc_main/record/files.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace gpuvp {

bool write_file_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!(f << text) || !f.flush()) return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

bool read_file(const std::string& path, std::string& text) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return false;
    const std::streamoff size = f.tellg();
    if (size < 0 || !f.seekg(0)) return false;
    text.resize(size_t(size));
    return size == 0 || (f.read(text.data(), size) && f.gcount() == size);
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace gpuvp
