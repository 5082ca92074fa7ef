#pragma once

#include "model/Result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace fusescope::files {

// Checks on the files a user names (a model, a report, an output), made before anything runs so
// that a bad path is a clear usage error instead of a blocked read, an overwritten model or a
// run whose result cannot be saved. Messages say what is wrong, not which option it was: the
// caller prefixes that.

// `bytes` as it can be printed: valid UTF-8 kept, every other byte and control character as \xNN.
std::string printable(std::string_view bytes);

// What a file that is not a regular file is, for messages: "a directory", "a FIFO (named pipe)",
// "a socket", "a character device", "a block device".
std::string kindOf(mode_t mode);

// "4 GiB", "16 MiB", "512 bytes".
std::string sizeText(uint64_t bytes);

// The whole of a file a user named. Refused by type before it is opened (a FIFO would block, a
// device like /dev/zero never ends), checked again on the open descriptor (no race), and refused
// past maxBytes. Error codes: not_found, is_directory, not_regular, too_large, unreadable; the
// message is the reason, without the path.
Result<std::string> readRegularFile(const std::string& path, uint64_t maxBytes);

// demo:NAME and hf:NAME name built-in and Hugging Face models (the worker's models/__init__.py);
// anything else is a path.
bool isModelName(const std::string& spec);

// A model given by path (FILE.py, FILE.pt; demo: and hf: names are not paths): valid UTF-8 (a
// request carries it as JSON text) and, when it exists, a regular file. A missing file is left
// to the backend, which reports model_not_found on its row.
Status checkModelPath(const std::string& spec);

// A file the user reads from that an output must not replace: "the model file", "the report".
struct InputFile {
    std::string path;
    std::string what;
};

// A path about to be written (atomically: a temporary file beside it, then a rename): valid
// UTF-8; not a directory, FIFO or device; not any of `inputs` by real path or by device and
// inode (symlinks, hard links); in a folder that exists and takes a new file, which is probed by
// creating and removing one.
Status checkOutputPath(const std::string& path, const std::vector<InputFile>& inputs = {});

} // namespace fusescope::files
