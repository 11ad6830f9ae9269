#pragma once
// Boost.Program_options glue shared by the subcommands: parsing with errors mapped to InputError.
#include <boost/program_options.hpp>

#include "tools/cli/cli_error.h"
#include "tools/cli/commands.h"

namespace npusim::cli {

namespace po = boost::program_options;

// Parses `args` against `desc` (+ positional names); --help prints `usage` + options and returns false.
bool parse_options(const Args& args, const std::string& usage, const po::options_description& desc,
                   const po::positional_options_description& pos, po::variables_map& vm);

}  // namespace npusim::cli
