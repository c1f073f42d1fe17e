// gelulab: with no subcommand, the desktop app (when built with the GUI); otherwise a CLI subcommand.
#include "cli.hpp"

int main(int argc, char** argv) {
  return gelu::cli::run_main(argc, argv);
}
