// File > Export lesson handout…: runs `gelulab lessons --handout FILE --out DIR --progress` (this very
// executable, so the window writes exactly what the command line writes) as a child process and reads its
// progress ("step N of M") and its last line ("wrote DIR/NAME.html (M steps)", or the error) without
// blocking the frame. No ImGui.
#pragma once

#include <sys/types.h>

#include <string>

namespace gelu::app {

class HandoutJob {
 public:
  HandoutJob() = default;
  ~HandoutJob();  // a job still running is stopped (SIGTERM) and reaped
  HandoutJob(const HandoutJob&) = delete;
  HandoutJob& operator=(const HandoutJob&) = delete;

  /// Starts the export of `lesson` into the folder `dir`; false and *error when the child cannot start (a job
  /// already running, no executable path).
  bool start(const std::string& lesson, const std::string& dir, std::string* error);
  /// Reads what the child wrote so far and whether it has ended; call once a frame.
  void poll();

  bool running() const { return pid_ > 0; }
  bool finished() const { return finished_; }  // ended (ok() says how)
  bool ok() const { return finished_ && status_ == 0; }
  int done_steps() const { return done_; }
  int total_steps() const { return total_; }
  /// The last line the child wrote: progress, "wrote …", or why it failed.
  const std::string& message() const { return message_; }

 private:
  void line(const std::string& l);
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buf_, message_;
  int done_ = 0, total_ = 0, status_ = -1;
  bool finished_ = false;
};

}  // namespace gelu::app
