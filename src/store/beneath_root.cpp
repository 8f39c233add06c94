#include "store/beneath_root.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {

Fd open_parent_beneath(const std::string& root, std::string_view key, bool create, const std::string& url) {
  const std::string k(key);
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::io, "'" + k + "': " + why, {"", k, "", url});
  };
  Fd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) throw fail("cannot open the store directory: " + std::string(std::strerror(errno)));
  std::size_t pos = 0;
  for (std::size_t slash; (slash = key.find('/', pos)) != std::string_view::npos; pos = slash + 1) {
    const std::string part(key.substr(pos, slash - pos));
    const std::string so_far(key.substr(0, slash));
    int fd = ::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      if (!create) return Fd();
      // 0777: the umask decides, as for any directory a program creates.
      if (::mkdirat(dir.get(), part.c_str(), 0777) != 0 && errno != EEXIST)
        throw fail("cannot create directory '" + so_far + "': " + std::strerror(errno));
      fd = ::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
      const int e = errno;
      struct stat st;
      if ((e == ELOOP || e == ENOTDIR) && ::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode))
        throw fail("'" + so_far + "' is a symbolic link; writes do not follow links, which could leave the store");
      if (e == ENOTDIR) throw fail("'" + so_far + "' is not a directory");
      throw fail("cannot open directory '" + so_far + "': " + std::strerror(e));
    }
    dir = Fd(fd);
  }
  return dir;
}

std::size_t remove_stale_temporaries(int dir, std::string_view marker) {
  const int copy = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return 0;
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) { ::close(copy); return 0; }
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    const std::size_t at = name.find(marker);
    if (at == std::string_view::npos) continue;
    const std::string_view rest = name.substr(at + marker.size());
    long pid = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    if (ec != std::errc() || pid <= 0) continue;
    // ESRCH: no such process, so nobody will rename this file any more.
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) stale.emplace_back(name);
  }
  ::closedir(d);
  std::size_t removed = 0;
  for (const auto& name : stale) removed += ::unlinkat(dir, name.c_str(), 0) == 0;
  return removed;
}

}  // namespace zarrgpu::store
