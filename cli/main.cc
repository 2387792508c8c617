// isrcheck: the command line (cli/app.cc builds it and documents the exit codes).
#include "cli/app.h"

int main(int argc, char** argv) { return isr::cli::run_app(argc, argv); }
