// gelulab: with no subcommand, the desktop app (when built with the GUI); otherwise a CLI subcommand.
#include "command/command.hpp"

int main(int argc, char** argv) {
  return gelu::command::run_main(argc, argv);
}
