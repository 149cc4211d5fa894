// A file's bytes read whole, written whole (a reader sees all or nothing), and a CSV field: what
// the writers and readers of the run's files share.
#pragma once
#include <string>

namespace gpuvp {

// Writes `text` to `path` through a temporary file beside it and a rename: a reader sees the whole
// file or none. False (errno set) when it cannot.
bool write_file_atomically(const std::string& path, const std::string& text);
// A whole file's bytes, read in one piece; false when it cannot be read whole (missing, a
// directory, a read error).
bool read_file(const std::string& path, std::string& text);

// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

}  // namespace gpuvp
