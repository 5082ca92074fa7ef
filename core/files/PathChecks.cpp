#include "PathChecks.h"

#include "codec/Utf8.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fusescope::files {

namespace {

std::string systemError(int err) {
    return std::strerror(err);
}

Status notUtf8(const std::string& path) {
    return Error{"path_not_utf8", printable(path) +
                                      ": the path is not valid UTF-8 (FuseScope keeps paths as UTF-8 text); "
                                      "rename it"};
}

// The bytes a UTF-8 sequence starting with `lead` takes, 0 when `lead` cannot start one.
size_t sequenceLength(unsigned char lead) {
    if (lead < 0x80)
        return 1;
    if ((lead & 0xE0) == 0xC0)
        return 2;
    if ((lead & 0xF0) == 0xE0)
        return 3;
    if ((lead & 0xF8) == 0xF0)
        return 4;
    return 0;
}

bool sameFile(const std::string& a, const std::string& b) {
    struct stat sa {};
    struct stat sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
        sa.st_ino == sb.st_ino)
        return true;
    std::error_code ec1;
    std::error_code ec2;
    const auto ra = std::filesystem::weakly_canonical(a, ec1);
    const auto rb = std::filesystem::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && ra == rb;
}

// Whether a new file can be made in `dir`: the one way to know, for read-only mounts, ACLs and
// /proc alike, is to make one.
Status probeFolder(const std::string& dir) {
    std::string probe = (std::filesystem::path(dir) / ".fusescope-write-test-XXXXXX").string();
    const int fd = ::mkstemp(probe.data());
    if (fd < 0)
        return Error{"folder_not_writable",
                     "cannot write in folder " + printable(dir) + ": " + systemError(errno)};
    ::close(fd);
    ::unlink(probe.c_str());
    return std::nullopt;
}

} // namespace

bool isModelName(const std::string& spec) {
    return spec.rfind("demo:", 0) == 0 || spec.rfind("hf:", 0) == 0;
}

std::string printable(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    size_t i = 0;
    while (i < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        const size_t n = sequenceLength(c);
        const bool control = c < 0x20 || c == 0x7F;
        if (n > 0 && !control && i + n <= bytes.size() && utf8::isValid(bytes.substr(i, n))) {
            out.append(bytes.substr(i, n));
            i += n;
            continue;
        }
        char escaped[5];
        std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
        out += escaped;
        ++i;
    }
    return out;
}

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

std::string sizeText(uint64_t bytes) {
    constexpr uint64_t kMiB = uint64_t(1) << 20;
    constexpr uint64_t kGiB = uint64_t(1) << 30;
    if (bytes >= kGiB && bytes % kGiB == 0)
        return std::to_string(bytes / kGiB) + " GiB";
    if (bytes >= kMiB && bytes % kMiB == 0)
        return std::to_string(bytes / kMiB) + " MiB";
    return std::to_string(bytes) + " bytes";
}

Result<std::string> readRegularFile(const std::string& path, uint64_t maxBytes) {
    // stat first: opening a device can have effects of its own (a tape rewinds, a tty hangs up).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT)
            return Error{"not_found", "no such file"};
        return Error{"unreadable", "cannot read: " + systemError(err)};
    }
    auto notRegular = [](mode_t mode) -> Error {
        if (S_ISDIR(mode))
            return Error{"is_directory", "is a directory, not a file"};
        return Error{"not_regular", "is " + kindOf(mode) + ", not a regular file"};
    };
    if (!S_ISREG(st.st_mode))
        return notRegular(st.st_mode);
    auto tooLarge = [maxBytes](const std::string& size) -> Error {
        return Error{"too_large", "is " + size + ", more than the limit of " + sizeText(maxBytes)};
    };
    if (static_cast<uint64_t>(st.st_size) > maxBytes)
        return tooLarge(std::to_string(st.st_size) + " bytes");

    // O_NONBLOCK: should the path have become a FIFO since the stat, open does not wait for a
    // writer, and the fstat below refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return Error{"unreadable", "cannot open: " + systemError(errno)};
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0)
        return Error{"unreadable", "cannot read: " + systemError(errno)};
    if (!S_ISREG(st.st_mode))
        return notRegular(st.st_mode);
    if (static_cast<uint64_t>(st.st_size) > maxBytes)
        return tooLarge(std::to_string(st.st_size) + " bytes");

    std::string contents;
    contents.reserve(static_cast<size_t>(st.st_size));
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error{"unreadable", "cannot read: " + systemError(errno)};
        }
        if (n == 0)
            break;
        // A file that grows while it is read (or a /proc file that reports no size).
        if (contents.size() + static_cast<size_t>(n) > maxBytes)
            return tooLarge("over " + sizeText(maxBytes) + " when read");
        contents.append(chunk, static_cast<size_t>(n));
    }
    return contents;
}

Status checkModelPath(const std::string& spec) {
    if (!utf8::isValid(spec))
        return notUtf8(spec);
    if (isModelName(spec) || spec.empty())
        return std::nullopt;
    struct stat st {};
    if (::stat(spec.c_str(), &st) != 0)
        return std::nullopt;
    if (!S_ISREG(st.st_mode))
        return Error{"model_not_a_file",
                     spec + " is " + kindOf(st.st_mode) + ", not a model file (FILE.py or FILE.pt)"};
    return std::nullopt;
}

Status checkOutputPath(const std::string& path, const std::vector<InputFile>& inputs) {
    if (path.empty())
        return Error{"path_empty", "the path is empty"};
    if (!utf8::isValid(path))
        return notUtf8(path);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return Error{"path_is_directory", path + " is a directory; name a file in it, e.g. " +
                                                  (std::filesystem::path(path) / "report.fscope").string()};
        if (!S_ISREG(st.st_mode))
            return Error{"path_not_regular", path + " is " + kindOf(st.st_mode) + ", not a file to write"};
    }
    for (const auto& input : inputs) {
        if (!input.path.empty() && sameFile(path, input.path))
            return Error{"path_is_input", path + " is " + input.what + " (" + input.path +
                                              "); writing there would replace it. Choose another path"};
    }
    const std::filesystem::path target(path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : std::string(".");
    if (::stat(dir.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT)
            return Error{"folder_missing",
                         "cannot write " + path + ": the folder " + dir + " does not exist"};
        return Error{"folder_not_writable",
                     "cannot write " + path + ": folder " + dir + ": " + systemError(err)};
    }
    if (!S_ISDIR(st.st_mode))
        return Error{"folder_not_directory", "cannot write " + path + ": " + dir + " is not a directory"};
    if (auto bad = probeFolder(dir))
        return Error{bad->code, "cannot write " + path + ": " + bad->message};
    return std::nullopt;
}

} // namespace fusescope::files
