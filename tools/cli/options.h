#pragma once
// Boost.Program_options glue shared by the subcommands: parsing with errors mapped to InputError.
#include <boost/program_options.hpp>
#include <initializer_list>
#include <utility>

#include "tools/cli/cli_error.h"
#include "tools/cli/commands.h"

namespace npusim::cli {

namespace po = boost::program_options;

// The positional arguments, in order: an option name and how many words it takes (-1: all the rest).
using Positionals = std::initializer_list<std::pair<const char*, int>>;

// Parses `args` against `desc` and the positional names; --help prints `usage` + options and returns false.
bool parse_options(const Args& args, const std::string& usage, const po::options_description& desc,
                   Positionals positional, po::variables_map& vm);

}  // namespace npusim::cli
