// The Python extension `npusim._npusim`: operator runs in-process on a new simulated machine per call, with the
// CLI's run path (tools/cli/case_run.h), so outputs and report.json equal `npusim run`'s. Tensors cross as
// (dtype name, C-contiguous numpy array) pairs; the Python package (npusim/) converts torch tensors, bf16 and
// int4 packing, and maps the result. The GIL is released while the machine simulates; Ctrl-C stops it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

#include "kernels/host/case_file.h"
#include "kernels/op/registry.h"
#include "sim/config/hw_config.h"
#include "tools/cli/case_run.h"
#include "tools/cli/cli_error.h"

namespace py = pybind11;

namespace npusim::python {
namespace {

// numpy's name for the storage of each case dtype (bf16 travels as its uint16 bits, int4 as one int8 per value).
const char* numpy_storage(op::ElemType t) {
  switch (t) {
    case op::ElemType::F16: return "float16";
    case op::ElemType::BF16: return "uint16";
    case op::ElemType::F32: return "float32";
    case op::ElemType::I8: return "int8";
    case op::ElemType::U8: return "uint8";
    case op::ElemType::I32: return "int32";
    case op::ElemType::I64: return "int64";
    case op::ElemType::Bool: return "bool";
    case op::ElemType::I4: return "int8";
    case op::ElemType::U16: return "uint16";
    case op::ElemType::U64: return "uint64";
  }
  return "uint8";
}

op::ElemType elem_type(const std::string& name, const std::string& what) {
  op::ElemType t;
  if (!op::parse_elem_type(name, t))
    throw py::type_error(
        what + ": dtype '" + name +
        "' is not one of float16, bfloat16, float32, int8, uint8, int32, int64, bool, int4, uint16, uint64");
  return t;
}

op::TensorEntry tensor_entry(const std::string& name, const std::string& dtype, const py::array& a) {
  op::TensorEntry e;
  e.name = name;
  e.dtype = elem_type(dtype, "inputs." + name);
  e.file = "(Python argument)";  // resolved.yaml names where the data came from; the data is here, not generated
  const std::string storage = numpy_storage(e.dtype);
  if (!a.dtype().is(py::dtype(storage)))
    throw py::type_error("inputs." + name + ": a " + dtype + " tensor travels as numpy " + storage + ", got " +
                         std::string(py::str(a.dtype())));
  if (!(a.flags() & py::array::c_style)) throw py::type_error("inputs." + name + ": the array must be C-contiguous");
  for (py::ssize_t i = 0; i < a.ndim(); ++i) e.shape.push_back(int64_t(a.shape(i)));
  e.data.type = e.dtype;
  e.data.shape = e.shape;
  e.data.bytes.resize(size_t(a.nbytes()));
  if (a.nbytes()) std::memcpy(e.data.bytes.data(), a.data(), size_t(a.nbytes()));
  if (e.dtype == op::ElemType::I4)
    for (const uint8_t b : e.data.bytes)
      if (int8_t(b) < -8 || int8_t(b) > 7)
        throw py::value_error("inputs." + name + ": an int4 value " + std::to_string(int(int8_t(b))) +
                              " is outside [-8, 7]");
  return e;
}

// inputs: {name: [(dtype, array), ...]}; names in `lists` are tensor-list parameters (a list of one differs from
// a tensor).
op::CaseFile build_case(const std::string& op_name, const py::dict& inputs, const std::vector<std::string>& lists,
                        const std::vector<std::string>& sets) {
  op::CaseFile c;
  c.path = "<python>";
  c.name = op_name;
  c.op = op_name;
  c.set_origin = "argument";
  c.attrs = YAML::Node(YAML::NodeType::Map);
  c.tiling = YAML::Node(YAML::NodeType::Map);
  for (const auto& [k, v] : inputs) {
    const std::string name = py::cast<std::string>(k);
    auto& list = c.inputs[name];
    for (const auto& item : py::cast<py::list>(v)) {
      const auto pair = py::cast<py::tuple>(item);
      list.push_back(tensor_entry(name, py::cast<std::string>(pair[0]), py::cast<py::array>(pair[1])));
    }
  }
  for (const auto& n : lists) c.list_inputs.insert(n);
  op::apply_sets(c, sets);
  return c;
}

py::dict result_dict(const cli::CaseRun& rr) {
  py::dict outputs;
  for (const auto& [name, t] : rr.outputs) {
    std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    py::array a(py::dtype(numpy_storage(t.type)), shape);
    if (!t.bytes.empty()) std::memcpy(a.mutable_data(), t.bytes.data(), t.bytes.size());
    outputs[py::str(name)] = py::make_tuple(op::elem_type_name(t.type), a);
  }
  py::list faults, notes;
  for (const auto& f : rr.faults) faults.append(py::make_tuple(f.kind, f.message));
  for (const auto& n : rr.notes) notes.append(py::make_tuple(n.kind, n.message));
  py::dict d;
  d["outputs"] = outputs;
  d["report_json"] = rr.report.dump();
  d["status"] = rr.status;
  d["faults"] = faults;
  d["notes"] = notes;
  return d;
}

struct RunOptions {
  std::string hw, mode, checks, trace_dir;
  std::vector<std::string> hw_sets;
};

cli::SimOptions sim_options(const RunOptions& o) {
  cli::SimOptions so;
  so.hw = o.hw;
  so.mode = o.mode;
  so.checks = o.checks;
  so.sets = o.hw_sets;
  so.out = o.trace_dir;
  so.trace = !o.trace_dir.empty();
  return so;
}

// Runs with the GIL released; Ctrl-C (a pending SIGINT seen by PyErr_CheckSignals) stops the launch (an
// `interrupted` fault) and the result says so: the package raises KeyboardInterrupt.
py::dict run_released(op::CaseFile c, const RunOptions& o) {
  const cli::SimOptions so = sim_options(o);
  cli::CaseRunHooks hooks;
  hooks.write_files = !o.trace_dir.empty();
  hooks.print_faults = false;
  bool interrupted = false;
  hooks.configure = [&interrupted](sim::Machine& m) {
    m.set_progress(false);
    m.set_interrupt([&interrupted] {
      py::gil_scoped_acquire gil;
      interrupted = interrupted || PyErr_CheckSignals() != 0;
      return interrupted;
    });
  };
  cli::CaseRun rr;
  {
    py::gil_scoped_release nogil;
    rr = cli::run_loaded_case(std::move(c), so, hooks);
  }
  py::dict d = result_dict(rr);
  d["interrupted"] = py::none();
  if (interrupted) {          // the package raises the signal handler's exception once it has kept the report
    py::error_already_set e;  // takes the pending exception
    d["interrupted"] = e.value();
  }
  return d;
}

py::dict run(const std::string& op_name, const py::dict& inputs, const std::vector<std::string>& lists,
             const std::vector<std::string>& sets, const RunOptions& o) {
  return run_released(build_case(op_name, inputs, lists, sets), o);
}

py::dict run_case(const std::string& path, const std::vector<std::string>& sets, const RunOptions& o) {
  op::CaseFile c;
  {
    py::gil_scoped_release nogil;
    const bool fill = o.mode != "timing";  // timing mode needs shapes only
    if (fill)
      cli::refuse_over_budget(op::load_case(path, sets, false), cli::host_memory_budget(sim_options(o)), o.mode);
    c = op::load_case(path, sets, fill);
  }
  return run_released(std::move(c), o);
}

py::list op_params(const std::string& op_name) {
  py::list out;
  for (const auto& p : op::find_op(op_name).params()) {
    py::dict d;
    d["name"] = p.name, d["kind"] = p.kind, d["required"] = p.required, d["default"] = p.default_text, d["doc"] = p.doc;
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace npusim::python

PYBIND11_MODULE(_npusim, m) {
  using namespace npusim;
  using namespace npusim::python;
  m.doc() = "npusim's in-process core; use the `npusim` package (tools/python/README.md)";
  // The CLI's exit-2 errors (parameter, value, rule) are ValueErrors; the same text.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cli::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const op::CaseError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const sim::ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const sim::KernelInputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::class_<RunOptions>(m, "RunOptions")
      .def(py::init<>())
      .def_readwrite("hw", &RunOptions::hw)
      .def_readwrite("mode", &RunOptions::mode)
      .def_readwrite("checks", &RunOptions::checks)
      .def_readwrite("trace_dir", &RunOptions::trace_dir)
      .def_readwrite("hw_sets", &RunOptions::hw_sets);
  m.def("run", &run, py::arg("op"), py::arg("inputs"), py::arg("lists"), py::arg("sets"), py::arg("options"));
  m.def("run_case", &run_case, py::arg("path"), py::arg("sets"), py::arg("options"));
  m.def("ops", [] {
    std::vector<std::string> names;
    for (const auto& o : op::all_ops()) names.push_back(o->name());
    return names;
  });
  m.def("op_summary", [](const std::string& name) { return op::find_op(name).summary(); });
  m.def("op_params", &op_params, py::arg("op"));
  m.def(
      "tiling_space_json",
      [](const std::string& name, const std::string& hw) {
        return op::find_op(name).tiling_space().to_json(sim::load_hw(hw)).dump();
      },
      py::arg("op"), py::arg("hw"));
  m.def("hw_configs", [] { return sim::bundled_hw_names(); });
  m.def("default_hw", [] { return sim::default_hw_name(); });
  m.def("storage_dtype",
        [](const std::string& dtype) { return std::string(numpy_storage(elem_type(dtype, "dtype"))); });
}
